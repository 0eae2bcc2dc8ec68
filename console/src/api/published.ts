// The lists the server publishes in its OpenAPI document (components.schemas), which
// scripts/build-console.ts copies to schemas.json; their types come from schema.d.ts.
import type { components } from './schema';
import schemas from './schemas.json';

type Published = components['schemas'];
type ListSchema = { enum?: string[]; anyOf?: { enum?: string[]; title?: string }[] };

/** The values of a published list in the server's order, each with its label (its title, else the value itself). */
export function choicesOf<K extends keyof Published>(name: K): { value: Published[K]; label: string }[] {
  const schema: ListSchema = (schemas as Record<string, ListSchema>)[name] ?? {};
  const options = schema.anyOf ?? (schema.enum ?? []).map((value) => ({ enum: [value], title: undefined }));
  return options.flatMap((option) => (option.enum ?? []).map((value) => ({ value: value as Published[K], label: option.title ?? value })));
}

/** The values of a published list, in the server's order. */
export const valuesOf = <K extends keyof Published>(name: K): Published[K][] => choicesOf(name).map((choice) => choice.value);
