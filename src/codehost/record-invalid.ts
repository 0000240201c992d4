/**
 * A record that failed its rules, with messages per attribute, as ActiveRecord
 * reports them; GitLab's API answers it as 400 `{"message": {attribute: [messages]}}`.
 */
export class RecordInvalid extends Error {
  override readonly name = 'RecordInvalid';
  constructor(readonly errors: Readonly<Record<string, readonly string[]>>) {
    super(
      Object.entries(errors)
        .map(([attribute, messages]) => `${attribute} ${messages.join(', ')}`)
        .join('; '),
    );
  }
}
