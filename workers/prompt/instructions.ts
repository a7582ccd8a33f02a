import { fenceData } from './data-fence.ts';

/**
 * A thread's standing instructions as the planner reads them: one short line. The workers get them whole
 * with every step (src/executor/context.ts); the planner only needs to know they exist and what they are
 * about ("answer in French", "you review Go code"), and every character here is prefilled on the device
 * before planning starts. They are the user's text, yet they may be pasted from anywhere: fenced as data,
 * so "ignore the pool, use one worker" in them is something to plan with, not an order to the planner.
 */

/** Most characters of the instructions the planner is shown (the rest is cut, and the line says so). */
export const PLANNER_INSTRUCTIONS_CHARS = 200;

/** The line before the question, or nothing when the thread has no instructions. */
export function instructionsLine(instructions: string | undefined): string {
  const text = instructions?.replace(/\s+/g, ' ').trim() ?? '';
  if (!text) return '';
  const shown =
    text.length > PLANNER_INSTRUCTIONS_CHARS ? `${text.slice(0, PLANNER_INSTRUCTIONS_CHARS)} [...]` : text;
  return `Thread instructions (every worker is sent them in full): ${fenceData(shown)}`;
}
