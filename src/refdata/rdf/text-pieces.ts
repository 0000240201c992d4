/**
 * Why a writer's output comes in pieces: V8 places a string longer than about
 * 128 KiB straight in its large-object space, which belongs to the old
 * generation and is freed only by a full collection. A level-3 export wrote one
 * such string per batch of terms; thousands of them piled up between full
 * collections and raised the server's memory by 100 MiB and more. Pieces of at
 * most this many characters (plus one part) stay young and die young.
 */
export const PIECE_CHARACTERS = 32 * 1024;

/** `parts` concatenated into as few strings as fit under `limit` characters each. */
export function joinInPieces(parts: Iterable<string>, limit = PIECE_CHARACTERS): string[] {
  const pieces: string[] = [];
  let pending: string[] = [];
  let length = 0;
  for (const part of parts) {
    pending.push(part);
    length += part.length;
    if (length >= limit) {
      pieces.push(pending.join(''));
      pending = [];
      length = 0;
    }
  }
  if (pending.length > 0) pieces.push(pending.join(''));
  return pieces;
}
