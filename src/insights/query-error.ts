/** An insight query Hoglet cannot read; `attr` names the offending part for the error envelope. */
export class TrendsQueryError extends Error {
  constructor(
    message: string,
    readonly attr: string,
  ) {
    super(message);
  }
}
