// Public entry point of the `respire` package.
export * from './errors.js';
