import type { OfferedTool } from '../../src/shared/conductor-api.ts';
import { fenceData } from './data-fence.ts';

/**
 * What the conductor reads about the tools the user offered (src/tools/): one short line each, then which
 * workers can call them. Only when some are offered: a pool without tools has a prompt no longer than
 * before. A tool's description is its server's text, so it is fenced as data and cut short.
 */

/** Longest description shown: a hint for choosing, never the tool's manual. */
const DESCRIPTION_CHARS = 80;

function toolLine(tool: OfferedTool): string {
  const description = tool.description.replace(/\s+/g, ' ').trim().slice(0, DESCRIPTION_CHARS);
  const said = description ? ` ${fenceData(JSON.stringify(description))}` : '';
  return `- ${tool.name}:${said}${tool.readOnly ? '' : ' (changes data; the user confirms each call)'}`;
}

/** The tools block of the system prompt, or '' when none is offered. */
export function toolsText(tools: readonly OfferedTool[] | undefined, toolWorkers: readonly string[]): string {
  if (!tools || tools.length === 0) return '';
  return [
    'Tools a step may call (list only those it needs: "tools": ["name"]):',
    ...tools.map(toolLine),
    toolWorkers.length > 0
      ? `Only these workers call tools: ${toolWorkers.join(', ')}.`
      : 'No worker calls tools: give tools to no step.',
  ].join('\n');
}
