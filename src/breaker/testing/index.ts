// `respire/breaker/testing`: the breaker's test kit for users (API.md "Breaker test kit for users"):
// the reference model, fast-check commands built with the caller's own fast-check, a fake clock.
export {
  type BreakerCommand,
  type BreakerSystem,
  type BreakerUnderTest,
  breakerCommands,
  breakerCoverage,
  type FastCheckArbitrary,
  type FastCheckModule,
} from './commands.js';
export { type FakeClock, fakeClock, seededRandom } from './fake-clock.js';
export {
  BreakerModel,
  type BreakerModelEnvironment,
  breakerModel,
  type ModelAcquire,
  type ModelOutcome,
} from './model.js';
