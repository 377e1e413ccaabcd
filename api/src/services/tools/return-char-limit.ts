/** The reference server's default `return_char_limit` (`FUNCTION_RETURN_CHAR_LIMIT`). */
export const DEFAULT_RETURN_CHAR_LIMIT = 50_000;
