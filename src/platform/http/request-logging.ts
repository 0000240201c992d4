import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';

/**
 * One log line per request, written when it completes, labelled with the same
 * `traceId` that error bodies carry. Fastify's default writes two lines.
 */
export class OneLinePerRequest extends LogController {
  /**
   * The success line's logger, without redaction. That line holds only what
   * the serializers make of the request and reply (method, the URL with its
   * credentials already replaced, address, user agent, status), and none of
   * those keys is one redaction censors, yet checking a line against the
   * redacted paths takes about 25 µs (2.5 µs without, in a loop). Error lines
   * and whatever handlers log keep the redaction.
   */
  private readonly completed: FastifyBaseLogger;

  constructor(logger: FastifyBaseLogger) {
    super({ requestIdLogLabel: 'traceId' });
    this.completed = logger.child({}, { redact: [] });
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      req: request,
      res: reply,
      responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else this.completed.info({ traceId: request.id, ...line }, 'request completed');
  }
}
