// Types for the two undici internals src/api/undici.ts imports by path (the package types only its index).
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';

  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export = request;
}

declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const AgentClass: typeof Agent;
  export = AgentClass;
}
