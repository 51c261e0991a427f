// The experiment result is a result (src/result/experiment-result.ts); experiments import it from here too.
export * from '../result/experiment-result.js';
