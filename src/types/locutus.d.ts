// locutus ships no type declarations; only the functions this project imports are declared.
declare module 'locutus/php/info/version_compare.js' {
  /** PHP's version_compare: -1, 0 or 1 without an operator, a boolean with one. */
  function versionCompare(a: string, b: string): -1 | 0 | 1;
  function versionCompare(a: string, b: string, operator: string): boolean | null;
  export default versionCompare;
}
