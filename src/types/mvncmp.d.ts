// mvncmp ships no type declarations.
declare module 'mvncmp' {
  /** Maven's ComparableVersion ordering: negative, zero or positive. Never throws. */
  export function compare(a: string, b: string): number;
  const mvncmp: { compare: typeof compare };
  export default mvncmp;
}
