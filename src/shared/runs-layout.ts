/** The runs database's store of files: named here because the restore's thread writes files into it too. */
export const ATTACHMENTS_STORE = 'attachments';
