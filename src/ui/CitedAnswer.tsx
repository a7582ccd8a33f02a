import { useState } from 'preact/hooks';
import { type SentFileLike, sentPassages, tokenPassages } from '../attachments/passage-cites.ts';
import type { Attachment } from '../attachments/types.ts';
import { Answer, type AnswerCites } from './Answer.tsx';
import { type OpenedCitation, PassageDialog } from './PassageDialog.tsx';

/**
 * A step's answer whose citations of the passages the run sent ("[3]", "[p. 12]") open them from the
 * local copy of their file; a citation naming nothing sent stays text. Without a way to read the files,
 * or when no passage was sent, the answer as it is.
 */
export function CitedAnswer({
  text,
  steps,
  step,
  fileOf,
}: {
  text: string;
  steps: readonly { index: number; sent?: readonly SentFileLike[] | undefined }[];
  /** The step whose answer this is: its own labels are the ones it cites. */
  step: number;
  fileOf: ((id: string) => Promise<Attachment | undefined>) | undefined;
}) {
  const [opened, setOpened] = useState<OpenedCitation | undefined>();
  const sent = sentPassages(steps);
  if (!fileOf || sent.length === 0) return <Answer text={text} />;
  const cites: AnswerCites = {
    find: (token) => tokenPassages(token, sent, step),
    open: (token, passages) => setOpened({ cite: token.text, passages }),
    key: sent.map((p) => `${p.step}:${p.label}:${p.file}:${p.n}`).join(),
  };
  return (
    <>
      <Answer text={text} cites={cites} />
      {opened && <PassageDialog opened={opened} fileOf={fileOf} onClose={() => setOpened(undefined)} />}
    </>
  );
}
