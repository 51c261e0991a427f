/** The spec's column types (clause 1.3) that some DBMSs spell otherwise (dialect.ts). */
export const INT = 'int';
export const TIME = 'timestamp';
