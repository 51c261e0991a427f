/**
 * pgbench's valid_variable_name: ASCII letters, digits, underscores and any non-ASCII character
 * (pgbench reads bytes: every byte of a UTF-8 character has its high bit set), not starting with
 * a digit. -D, \set, \setshell, \gset and \aset are held to it.
 */
export const VARIABLE_NAME = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*$/;
