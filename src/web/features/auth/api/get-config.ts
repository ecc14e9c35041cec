import { queryOptions } from '@tanstack/react-query';
import { AppConfig } from '../../../../contract/index.ts';
import { apiFetch } from '../../../lib/api-client.ts';

export const getConfig = (signal?: AbortSignal) => apiFetch('/api/config', AppConfig, { signal });

export const configQueryOptions = () =>
  queryOptions({
    queryKey: ['config'],
    queryFn: ({ signal }) => getConfig(signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
