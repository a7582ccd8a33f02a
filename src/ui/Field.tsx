import type { ComponentChildren, CSSProperties, PartialInputHTMLAttributes } from 'preact';

type InputProps = Omit<
  PartialInputHTMLAttributes<HTMLInputElement>,
  'id' | 'value' | 'onInput' | 'class' | 'style' | 'role' | 'type'
>;

export interface FieldProps extends InputProps {
  id: string;
  type?: 'text' | 'number' | 'url' | 'password' | 'search';
  label: ComponentChildren;
  value: string | number;
  /** The text as typed (or chosen from a datalist), on every input. */
  onValue: (value: string) => void;
  /** Shown under the input and read with it (`aria-describedby`). */
  hint?: ComponentChildren;
  /** What is wrong with the value: shown under it, and the input is marked invalid. */
  error?: string;
  /** Style of the field's box (e.g. `{ flex: 1 }` in a row). */
  style?: CSSProperties;
  /** After the input, inside the field (a datalist, a button). */
  children?: ComponentChildren;
}

/** A labelled input with its hint and its error: the one way a form field is written. */
export function Field({
  id,
  type = 'text',
  label,
  value,
  onValue,
  hint,
  error,
  style,
  children,
  ...input
}: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy =
    [input['aria-describedby'], hintId, errorId]
      .filter((part) => typeof part === 'string' && part)
      .join(' ') || undefined;
  return (
    <div class="field" {...(style ? { style } : {})}>
      <label for={id}>{label}</label>
      <input
        {...input}
        // Preact types `type` with `role` as pairs; a field never takes a role, so any of these types fits.
        type={type as 'text' | undefined}
        id={id}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
      />
      {children}
      {hint && (
        <p id={hintId} class="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
