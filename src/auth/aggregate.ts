/**
 * The errors of several authenticators or authorizers as one (apimachinery's utilerrors.NewAggregate): the message
 * is the one error's, or `[e1, e2]` for several, each distinct text once.
 */
export function aggregateErrors(errors: readonly Error[]): Error {
  if (errors.length === 1) return errors[0]!;
  const texts = [...new Set(errors.map((e) => e.message))];
  return new AggregateError(errors, texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`);
}
