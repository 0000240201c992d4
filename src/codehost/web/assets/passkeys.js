// Passkey forms. A form marked `data-passkey="register"` or `"authenticate"`
// carries the WebAuthn options the server made (`data-passkey-options`). On
// submit the browser's ceremony runs through SimpleWebAuthn's browser half
// (loaded before this script), and its answer is posted in the form's
// `credential` field, with the rest of the form and its token, as any form.
// Without script, or without WebAuthn, the sections stay hidden and the
// password forms are the way in.
const webauthn = globalThis.SimpleWebAuthnBrowser;
const supported = Boolean(webauthn?.browserSupportsWebAuthn());

for (const section of document.querySelectorAll('[data-passkey-section]')) {
  if (section instanceof HTMLElement) section.hidden = !supported;
}
for (const note of document.querySelectorAll('[data-passkey-unsupported]')) {
  if (note instanceof HTMLElement) note.hidden = supported;
}

/** What went wrong, in words a person can act on. */
function explain(error) {
  if (error?.name === 'NotAllowedError') {
    return 'The passkey request was cancelled or timed out. Try again.';
  }
  if (error?.name === 'InvalidStateError') {
    return 'This device already holds a passkey for your account.';
  }
  return `The browser could not use a passkey: ${error?.message ?? error}`;
}

for (const form of document.querySelectorAll('form[data-passkey]')) {
  if (!(form instanceof HTMLFormElement) || !supported) continue;
  const status = form.querySelector('[data-passkey-status]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!form.reportValidity()) return;
    const button = form.querySelector('button[type="submit"]');
    if (button instanceof HTMLButtonElement) button.disabled = true;
    if (status) status.textContent = 'Follow your browser’s prompt to use your passkey…';
    try {
      const optionsJSON = JSON.parse(form.dataset.passkeyOptions ?? '{}');
      const answer =
        form.dataset.passkey === 'register'
          ? await webauthn.startRegistration({ optionsJSON })
          : await webauthn.startAuthentication({ optionsJSON });
      const field = form.elements.namedItem('credential');
      if (field instanceof HTMLInputElement) field.value = JSON.stringify(answer);
      form.submit();
    } catch (error) {
      if (status) status.textContent = explain(error);
      if (button instanceof HTMLButtonElement) button.disabled = false;
    }
  });
}
