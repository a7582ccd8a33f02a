/** An attachment's id: its content hash (the restore's thread checks records with the same function). */
export { contentHash } from '../shared/content-hash.ts';
