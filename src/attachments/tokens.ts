/**
 * What an attached image costs in prompt tokens: by its provider's documented rule where there is one, else
 * a stated estimate. Pure functions of the model id and the image's pixel size as sent. A file's text is
 * counted with the rest of the request it is sent in (src/executor/step-files.ts, `promptTokensOf`).
 */

import { type PixelSize, sendSize } from './image-size.ts';

export type ImageTokenRule =
  /** Scale to fit 2048 × 2048, then the short side to 768; `base` + `perTile` per 512-px tile. */
  | { kind: 'openai-tiles'; base: number; perTile: number }
  /** 32-px patches (at most 1536, scaled down to fit), times a model's multiplier. */
  | { kind: 'openai-patches'; multiplier: number }
  /** width × height / 750, after scaling to a 1568-px long edge and ~1.2 MP. */
  | { kind: 'anthropic-area' }
  /** 258 for an image within 384 × 384, else 258 per 768-px tile. */
  | { kind: 'gemini-tiles' }
  /** No rule documented for the model: Anthropic's area rule, as a stated estimate. */
  | { kind: 'estimate' };

/**
 * The image rule for a model, by its id (a router's `vendor/` prefix set aside). OpenAI's table:
 * https://platform.openai.com/docs/guides/images-vision#calculating-costs (patches ×1.62 for gpt-5-mini
 * and gpt-4.1-mini, ×2.46 for the nanos, ×1.72 for o4-mini; tiles 70 + 140 for gpt-5, 85 + 170 for
 * gpt-4o, gpt-4.1 and gpt-4.5, 75 + 150 for o1 and o3, 2833 + 5667 for gpt-4o-mini). Anthropic:
 * https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs. Gemini 2.0 and later:
 * https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens.
 */
export function imageTokenRule(model: string): ImageTokenRule {
  const id = model.toLowerCase().replace(/^.*\//, '');
  if (/^gpt-(5(\.\d+)?|4\.1)-nano\b/.test(id)) return { kind: 'openai-patches', multiplier: 2.46 };
  if (/^gpt-(5(\.\d+)?|4\.1)-mini\b/.test(id)) return { kind: 'openai-patches', multiplier: 1.62 };
  if (/^o4-mini\b/.test(id)) return { kind: 'openai-patches', multiplier: 1.72 };
  if (/^gpt-5\b/.test(id)) return { kind: 'openai-tiles', base: 70, perTile: 140 };
  if (/^gpt-4o-mini\b/.test(id)) return { kind: 'openai-tiles', base: 2833, perTile: 5667 };
  if (/^(chatgpt-4o|gpt-4o|gpt-4\.1|gpt-4\.5)\b/.test(id))
    return { kind: 'openai-tiles', base: 85, perTile: 170 };
  if (/^o[13]\b/.test(id)) return { kind: 'openai-tiles', base: 75, perTile: 150 };
  if (id.startsWith('claude')) return { kind: 'anthropic-area' };
  if (id.startsWith('gemini')) return { kind: 'gemini-tiles' };
  return { kind: 'estimate' };
}

const scaleToFit = ({ width, height }: PixelSize, scale: number): PixelSize => ({
  width: width * Math.min(1, scale),
  height: height * Math.min(1, scale),
});

/** OpenAI's tile count at high detail: the most an image costs, since `auto` may pick it. */
function openaiTiles(size: PixelSize): number {
  const fitted = scaleToFit(size, 2048 / Math.max(size.width, size.height));
  const shortSide = scaleToFit(fitted, 768 / Math.min(fitted.width, fitted.height));
  return Math.ceil(shortSide.width / 512) * Math.ceil(shortSide.height / 512);
}

/** OpenAI's 32-px patches, at most 1536: past that the image is scaled down to fit, to whole patches wide. */
export function openaiPatches({ width, height }: PixelSize): number {
  const patches = Math.ceil(width / 32) * Math.ceil(height / 32);
  if (patches <= 1536) return patches;
  const shrink = Math.sqrt((1536 * 32 * 32) / (width * height));
  const across = (width * shrink) / 32;
  const fit = Math.floor(across) / across;
  return Math.min(1536, Math.ceil((width * shrink * fit) / 32) * Math.ceil((height * shrink * fit) / 32));
}

/** Anthropic scales an image to the size Baton sends at (`sendSize`) before counting it. */
function anthropicArea(size: PixelSize): number {
  const { width, height } = sendSize(size);
  return Math.ceil((width * height) / 750);
}

export interface ImageTokens {
  tokens: number;
  /** True when the provider documents the rule; false for a stated estimate. */
  documented: boolean;
}

/** An image's prompt tokens under `rule`, from its pixel size as sent. */
export function imageTokens(size: PixelSize, rule: ImageTokenRule): ImageTokens {
  if (size.width <= 0 || size.height <= 0) return { tokens: 0, documented: rule.kind !== 'estimate' };
  switch (rule.kind) {
    case 'openai-tiles':
      return { tokens: rule.base + rule.perTile * openaiTiles(size), documented: true };
    case 'openai-patches':
      return { tokens: Math.ceil(openaiPatches(size) * rule.multiplier), documented: true };
    case 'anthropic-area':
      return { tokens: anthropicArea(size), documented: true };
    case 'gemini-tiles':
      return {
        tokens:
          size.width <= 384 && size.height <= 384
            ? 258
            : 258 * Math.ceil(size.width / 768) * Math.ceil(size.height / 768),
        documented: true,
      };
    case 'estimate':
      return { tokens: anthropicArea(size), documented: false };
  }
}
