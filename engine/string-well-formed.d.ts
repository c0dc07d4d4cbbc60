/**
 * `String.prototype.isWellFormed` (ES2024), present in Node.js 20 but absent from the ES2023
 * library the project compiles against (a wider library would also admit ES2024 features that
 * Node.js 20 lacks).
 */
interface String {
  /** False when the string holds a lone surrogate. */
  isWellFormed(): boolean;
}
