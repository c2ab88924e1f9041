// When a closed circuit opens (seed 000 "How a circuit opens and recovers" 2; BREAKER.md 6).

/**
 * Whether a history holding `failures` of `total` outcomes opens the circuit. Run only when a
 * failure is recorded while closed, after expired outcomes were evicted.
 *
 * The rate test is the division `failures / total >= failureRateThreshold`, never the product
 * `failures >= failureRateThreshold * total`: the product rounds against decimal intent (7 of 100
 * at 0.07 would not trip), while the quotient of two counts up to 65536 and the threshold round
 * the same way whenever the exact rationals are equal, and cannot cross otherwise.
 */
export function shouldTrip(
  failures: number,
  total: number,
  minimumFailureCount: number,
  failureRateThreshold: number,
): boolean {
  return failures >= minimumFailureCount && failures / total >= failureRateThreshold;
}
