/** This package's version, as `package.json` has it (a test keeps the two equal). */
export const VERSION = '0.1.0';
