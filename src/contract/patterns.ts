/** Field patterns of the contract: the OpenAPI document carries them, the client checks input with them, the fake validates with them. */

/** `<uid>/<uid>`: two non-empty parts without `/` or whitespace. The OpenAPI document carries the same pattern. */
export const PERSON_REF = /^[^/\s]+\/[^/\s]+$/;
/**
 * A file name, a dot and one of the accepted extensions (any case): the OpenAPI document's pattern.
 * The fake answers 400 for what is not a file name with an extension and 422 for an extension
 * that is not the content's, as it does for content that is not PNG, JPG or PDF.
 */
export const FILE_NAME = /^[^/\\]*[^/\\.][^/\\]*\.([pP][nN][gG]|[jJ][pP][eE]?[gG]|[pP][dD][fF])$/;
