/**
 * `work`'s answer, or false once `ms` passed first (the work is left to finish or not): a
 * stopping process gives up on a database that may be gone rather than outlive its grace period.
 */
export function withinMs(work: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
