/**
 * The pieces the durable-step and group-commit benches share: the flow chain statecrew runs, the
 * LangGraph.js cycle it is set against, PostgreSQL's commit counter and the TCP relay that counts
 * round trips.
 */
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import pg from 'pg';

type Api = typeof import('statecrew');
type Store = import('statecrew').Store;

/** A flow named `name` of `steps` chained steps, each counting in its state and answering `step i`. */
export function chainFlow(api: Api, name: string, steps: number, store: Store | undefined) {
  let flow = api.createFlow({ name, initialState: { n: 0 }, store });
  for (let i = 0; i < steps; i += 1) {
    const body = ({ state }: { state: { n: number } }) => {
      state.n += 1;
      return `step ${i}`;
    };
    flow = i === 0 ? flow.start(`s${i}`, body) : flow.listen(`s${i}`, `s${i - 1}`, body);
  }
  return flow;
}

/**
 * The JSON text statecrew stores for step `i` (from 0) of {@link chainFlow}'s run `runId` at time `at`:
 * its `flow_runs` record `step:s<i>` (the run's header is mark 1, so the step's mark is `i + 2`; each
 * step completes a round). The same bytes, for a floor that writes what statecrew writes.
 */
export function chainStepText(runId: string, i: number, at: number): string {
  return JSON.stringify({
    nodeId: `s${i}`,
    step: `s${i}`,
    run: 1,
    round: i + 1,
    output: [`step ${i}`],
    state: [{ n: 1, id: 2 }, i + 1, runId],
    at,
    mark: i + 2,
    ended: { n: i + 1, steps: [`s${i}`], emitted: [`s${i}`] },
  });
}

const Counter = Annotation.Root({ counter: Annotation<number>, out: Annotation<string> });
type CounterState = typeof Counter.State;

/** LangGraph.js's two-node cycle `a` → `b` → `a` … ending after `steps` steps. */
export function cycleGraph(steps: number) {
  const step = (state: CounterState) => ({ counter: state.counter + 1, out: `step ${state.counter}` });
  const next = (to: 'a' | 'b') => (state: CounterState) => (state.counter >= steps ? END : to);
  return new StateGraph(Counter)
    .addNode('a', step)
    .addNode('b', step)
    .addEdge(START, 'a')
    .addConditionalEdges('a', next('b'), ['b', END])
    .addConditionalEdges('b', next('a'), ['a', END]);
}

/** A counter read around a run: its value now, and its end. */
export interface CommitCounter {
  read(): Promise<number>;
  end(): Promise<void>;
}

/**
 * PostgreSQL's committed transactions on database `test` (`pg_stat_database.xact_commit`), read until
 * the counter stops moving; `pg_stat_force_next_flush()` (PostgreSQL 15+) flushes this counter's own
 * backend, whose own read transactions are subtracted.
 */
export async function pgCommits(url: string): Promise<CommitCounter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let reads = 0;
  const once = async () => {
    reads += 1;
    const sql = `SELECT pg_stat_force_next_flush(), xact_commit AS n FROM pg_stat_database WHERE datname = 'test'`;
    const { rows } = await client.query<{ n: string }>(sql);
    return Number(rows[0]?.n) - (reads - 1);
  };
  const read = async () => {
    let last = await once();
    const deadline = Date.now() + 3000;
    for (let calm = 0; calm < 3 && Date.now() < deadline; ) {
      await sleep(40);
      const now = await once();
      calm = now === last ? calm + 1 : 0;
      last = now;
    }
    return last;
  };
  return { read, end: () => client.end() };
}

/**
 * A TCP relay to `port` that counts round trips: on each connection, every burst the client sends
 * after the server last answered is one. Exact for a client that waits for each answer (every
 * case here); connection handshakes count too.
 */
export async function relay(
  port: number,
): Promise<{ port: number; trips: () => number; close: () => Promise<void> }> {
  let trips = 0;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    let answered = true;
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => {
      if (answered) trips += 1;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      answered = true;
      client.write(chunk);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('relay: no port');
  const close = async () => {
    for (const socket of open) socket.destroy();
    await new Promise<void>((done) => server.close(() => done()));
  };
  return { port: address.port, trips: () => trips, close };
}
