/**
 * Build progress: a bar redrawn in place on a terminal, a line every 10% otherwise (CI logs, pipes).
 */
export function createProgress(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let lastTenth = -1;
  return (done: number, total: number) => {
    const share = total === 0 ? 1 : done / total;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (stream.isTTY) {
      const width = 30;
      const filled = Math.round(share * width);
      stream.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ` +
          `${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${seconds}s`,
      );
      if (done >= total) stream.write('\n');
      return;
    }
    const tenth = Math.floor(share * 10);
    if (tenth > lastTenth) {
      lastTenth = tenth;
      stream.write(
        `${label}: ${tenth * 10}% (${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}) ${seconds}s\n`,
      );
    }
  };
}
