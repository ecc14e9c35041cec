/** Types for load-env.js, which stays plain JavaScript so that `npm start` needs no devDependency. */
export function loadEnvFile(
  file?: string,
  env?: Record<string, string | undefined>,
  log?: (line: string) => void,
): string | null;
