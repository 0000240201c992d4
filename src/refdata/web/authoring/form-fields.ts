/** A submitted form's fields by name (the first value of a repeated one). */
export function formFieldsOf(body: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (body === null || typeof body !== 'object') return fields;
  for (const [name, value] of Object.entries(body)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields.set(name, first);
  }
  return fields;
}
