/** sha256 over the sorted repository-relative paths and contents of the bundle inputs. */
export function sourceDigest(root: string): string;
