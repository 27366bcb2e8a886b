export * from './score.js';
export * from './thresholds.js';
export * from './check.js';
export * from './collect.js';
export * from './dataset.js';
export * from './gsm8k.js';
export * from './outputs.js';
export * from './eval-dir.js';
