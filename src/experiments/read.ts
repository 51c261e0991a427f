// Reading an experiment result is the result layer's (src/result/read-experiment.ts); experiments import it from here too.
export * from '../result/read-experiment.js';
