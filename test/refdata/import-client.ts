/** Starting an import as a client does (multipart/form-data), and waiting for it to end. */
import { expect } from 'vitest';
import type { Refdata } from './helpers.js';

/** A multipart/form-data body as a browser's form or curl -F sends it. */
export async function multipart(
  fields: Record<string, string>,
  files: { name: string; bytes: Buffer }[],
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append('file', new Blob([file.bytes]), file.name);
  const request = new Request('http://localhost/imports', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') ?? '',
  };
}

export async function startImport(
  service: Refdata,
  fields: Record<string, string>,
  files: { name: string; bytes: Buffer }[],
  /** Who imports (a Creator; Alice unless said). */
  subject?: string,
) {
  const body = await multipart(fields, files);
  return service.call('POST', '/imports', {
    body: body.payload,
    headers: { 'content-type': body.contentType },
    ...(subject === undefined ? {} : { subject }),
  });
}

/** The job once it has ended. */
export async function finished(service: Refdata, location: string, subject?: string) {
  const path = new URL(location).pathname;
  for (;;) {
    const response = await service.call('GET', path, subject === undefined ? {} : { subject });
    expect(response.statusCode).toBe(200);
    const job = response.json();
    if (job.state === 'done' || job.state === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
