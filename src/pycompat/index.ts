export {
  PythonError,
  byCodePoint,
  isDict,
  pyDivide,
  pyEquals,
  pyFloat,
  pyInt,
  pyIntFromString,
  pyIsInt,
  pyIsIntNotBool,
  pyNumber,
  pyRepr,
  pyStr,
  pyTruthy,
  pyTypeName,
} from './builtins.js';
export type { FloatTest, PythonErrorType } from './builtins.js';
export { PyFloat, floatRepr, pyFixed, pyRound, pyRoundInt } from './float.js';
export { pyMean, pyPstdev, ratioToFloat } from './statistics.js';
export type { PyMean } from './statistics.js';
export { PyJsonSyntaxError, dumps, dumpsPlain, loads, toPlain } from './json.js';
export type { DumpsOptions, PyJson } from './json.js';
export { pyPath, readPyJson } from './os.js';
export type { JsonRead } from './os.js';
export { PyRegexError, compilePy } from './regex.js';
export type { PyRegex } from './regex.js';
export { PY_REGEX_TIME_LIMIT_MS, PyRegexLimitError, PyRegexTimeoutError } from './regex-runner.js';
export { PyRandom } from './random.js';
