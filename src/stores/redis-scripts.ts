import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { STORED_RUN_STATUSES } from './store.js';

/**
 * The Lua scripts of `RedisStore`: each write is one script, so it is atomic against every other
 * writer and one round trip. Scripts are sent by SHA (EVALSHA) once a client has loaded them.
 */

/** A Lua script and its SHA1, by which a server that has run it once runs it again. */
export class RedisScript {
  readonly sha: string;

  constructor(readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }
}

/** What one call of a script is given. */
export interface ScriptCall {
  keys: readonly string[];
  args: readonly (string | number)[];
}

/**
 * Writes one record as `put` does: the seq is taken once, on the first write, so a rewrite keeps its
 * place in its execution's index; `ttl` (0 = none) is refreshed on the record and on the index.
 */
const PUT_RECORD = `
local function putRecord(record, index, seqKey, version, text, at, member, ttl)
  local seq = redis.call('HGET', record, 'seq')
  if not seq then
    seq = redis.call('INCR', seqKey)
    redis.call('HSET', record, 'seq', seq)
  end
  redis.call('HSET', record, 'v', version, 'value', text, 'at', at)
  redis.call('ZADD', index, seq, member)
  if ttl > 0 then
    redis.call('EXPIRE', record, ttl)
    redis.call('EXPIRE', index, ttl)
  end
end
`;

/**
 * Writes one record. KEYS: record hash, execution index, sequence counter. ARGV: format version,
 * JSON text, updated ms, index member, TTL seconds (0 = none), and `insert` to write only where no
 * record is.
 */
export const WRITE_SCRIPT = new RedisScript(`${PUT_RECORD}
if ARGV[6] == 'insert' and redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
putRecord(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]))
return 1
`);

/** The server's clock in epoch ms (TIME): what a lease's expiry is set and judged by. */
const SERVER_CLOCK = `
local function serverMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function leaseLive(key)
  if not redis.call('HGET', key, 'token') then return false end
  local at = tonumber(redis.call('HGET', key, 'expires_at'))
  return at ~= nil and at > serverMs()
end
`;

/**
 * What every script on a run's head starts with. KEYS[1]: the head; KEYS[2..]: the status sets, in
 * the order of `STORED_RUN_STATUSES`. ARGV[1]: the run's member in those sets; ARGV[2]: TTL seconds
 * (0 = none); ARGV[3]: the time of the write (epoch ms). `file` moves the run to the set of its new
 * status, scored by its last change, and refreshes the TTL of the head and of that set, so a set
 * lives at least as long as every head it lists.
 */
const HEAD_PRELUDE = `
local head, member, ttl, now = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3]
local SETS = {${STORED_RUN_STATUSES.map((status, i) => `['${status}'] = KEYS[${i + 2}]`).join(', ')}}
local function expire(status)
  if ttl <= 0 then return end
  redis.call('EXPIRE', head, ttl)
  if SETS[status] then redis.call('EXPIRE', SETS[status], ttl) end
end
local function file(from, to, score)
  if from and from ~= to and SETS[from] then redis.call('ZREM', SETS[from], member) end
  if SETS[to] then redis.call('ZADD', SETS[to], score, member) end
  expire(to)
end
${SERVER_CLOCK}
local function setExpiry(ttl)
  if ttl ~= '' then redis.call('HSET', head, 'expires_at', serverMs() + tonumber(ttl)) end
end
`;

/** How many KEYS every head script starts with: the head and one set per status. */
const HEAD_KEY_COUNT = 1 + STORED_RUN_STATUSES.length;

/**
 * Creates a head where none is. ARGV[4]: its status; ARGV[5]: its lease's ttlMs (empty: keep the
 * expiry given); ARGV[6..]: its fields and values, in pairs.
 */
export const CREATE_RUN_SCRIPT = new RedisScript(`${HEAD_PRELUDE}
if redis.call('EXISTS', head) == 1 then return 0 end
redis.call('HSET', head, unpack(ARGV, 6))
if redis.call('HEXISTS', head, 'token') == 1 then setExpiry(ARGV[5]) end
file(false, ARGV[4], now)
return 1
`);

/**
 * Compare-and-set of a head's version, moving it on by one, refused while the head's lease is live
 * on the server's clock unless ARGV[10] is its token. ARGV[4]: the expected version; ARGV[5]: the
 * new status; ARGV[6..8]: the lease's token, expiry and owner (the token empty: no lease); ARGV[9]:
 * its ttlMs (empty: keep the expiry given); ARGV[10]: the token it replaces, or empty.
 */
export const CLAIM_RUN_SCRIPT = new RedisScript(`${HEAD_PRELUDE}
local version = redis.call('HGET', head, 'version')
if not version or tonumber(version) ~= tonumber(ARGV[4]) then return 0 end
if leaseLive(head) and (ARGV[10] == '' or redis.call('HGET', head, 'token') ~= ARGV[10]) then return 0 end
local from = redis.call('HGET', head, 'status')
redis.call('HINCRBY', head, 'version', 1)
redis.call('HSET', head, 'status', ARGV[5], 'updated_at', now)
if ARGV[6] == '' then
  redis.call('HDEL', head, 'token', 'expires_at', 'owner')
else
  redis.call('HSET', head, 'token', ARGV[6], 'expires_at', ARGV[7], 'owner', ARGV[8])
  setExpiry(ARGV[9])
end
file(from, ARGV[5], now)
return 1
`);

/**
 * Moves a lease's expiry while its token holds. ARGV[4]: the token; ARGV[5]: the new expiry; ARGV[6]:
 * the lease's ttlMs, which sets it from the server's clock instead (empty: none).
 */
export const RENEW_LEASE_SCRIPT = new RedisScript(`${HEAD_PRELUDE}
if redis.call('HGET', head, 'token') ~= ARGV[4] then return 0 end
redis.call('HSET', head, 'expires_at', ARGV[5])
setExpiry(ARGV[6])
expire(redis.call('HGET', head, 'status'))
return 1
`);

/**
 * A fenced commit: nothing is written unless the head's token is ARGV[4]. Then the head's change
 * (ARGV[5]: a new status, or empty; ARGV[6] `1`: release the lease; with neither the head stays as
 * it is, only its TTL refreshed), then the records as `put`
 * writes them. KEYS[HEAD_KEY_COUNT + 1]: the sequence counter; then per record its hash and its
 * index. ARGV[7]: the format version; then per record its JSON text and its index member. The head
 * changes first because HINCRBY is what can fail on a damaged head: a script that errors keeps what
 * it wrote before, so nothing may be written before it.
 */
export const COMMIT_SCRIPT = new RedisScript(`${HEAD_PRELUDE}${PUT_RECORD}
if redis.call('HGET', head, 'token') ~= ARGV[4] then return 0 end
if ARGV[5] ~= '' or ARGV[6] == '1' then
  local from = redis.call('HGET', head, 'status')
  local to = from
  if ARGV[5] ~= '' then
    to = ARGV[5]
    redis.call('HINCRBY', head, 'version', 1)
    redis.call('HSET', head, 'status', to)
  end
  if ARGV[6] == '1' then redis.call('HDEL', head, 'token', 'expires_at', 'owner') end
  redis.call('HSET', head, 'updated_at', now)
  file(from, to, now)
elseif ttl > 0 then
  expire(redis.call('HGET', head, 'status'))
end
local seqKey = KEYS[${HEAD_KEY_COUNT + 1}]
for i = 1, (#KEYS - ${HEAD_KEY_COUNT + 1}) / 2 do
  local k, a = ${HEAD_KEY_COUNT + 1} + 2 * i, 6 + 2 * i
  putRecord(KEYS[k - 1], KEYS[k], seqKey, ARGV[7], ARGV[a], now, ARGV[a + 1], ttl)
end
return 1
`);

/**
 * Deletes one run a prune chose, if it still is what was chosen: its head in status ARGV[2], last
 * changed before ARGV[3], its lease not live on the server's clock. KEYS: the head, the set of that
 * status, then the run's index in each collection it deletes; ARGV[1]: the run's member; ARGV[4]:
 * '1' to keep the head (a prune keeping history deletes only the kept events' index); ARGV[5..]: per
 * index, what its record keys start with. An entry whose head expired, or moved to another status,
 * is dropped from the set. Returns 1 if it deleted (the run or its events), 2 if it kept it back as live.
 */
export const PRUNE_RUN_SCRIPT = new RedisScript(`${SERVER_CLOCK}
local head, set, member = KEYS[1], KEYS[2], ARGV[1]
local status = redis.call('HGET', head, 'status')
if status ~= ARGV[2] then
  redis.call('ZREM', set, member)
  return 0
end
local at = tonumber(redis.call('HGET', head, 'updated_at'))
if not at or at >= tonumber(ARGV[3]) then return 0 end
if leaseLive(head) then return 2 end
for i = 3, #KEYS do
  for _, record in ipairs(redis.call('ZRANGE', KEYS[i], 0, -1)) do
    redis.call('DEL', ARGV[i + 2] .. record)
  end
  redis.call('DEL', KEYS[i])
end
if ARGV[4] == '1' then return 1 end
redis.call('DEL', head)
redis.call('ZREM', set, member)
return 1
`);

/** The scripts each client has run, by SHA: until it has, a script is sent whole (EVAL) once. */
const loaded = new WeakMap<Redis, Set<string>>();

function loadedOn(client: Redis): Set<string> {
  let shas = loaded.get(client);
  if (shas === undefined) {
    shas = new Set();
    loaded.set(client, shas);
  }
  return shas;
}

/** Whether the server forgot a script (restarted, or SCRIPT FLUSH): then it is sent whole again. */
function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** Runs a script in one round trip: by SHA once this client has sent it, whole the first time. */
export async function runScript(client: Redis, script: RedisScript, call: ScriptCall): Promise<unknown> {
  const shas = loadedOn(client);
  const args = [...call.keys, ...call.args];
  if (shas.has(script.sha)) {
    try {
      return await client.evalsha(script.sha, call.keys.length, ...args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
    }
  }
  const reply = await client.eval(script.lua, call.keys.length, ...args);
  shas.add(script.sha);
  return reply;
}

/**
 * Runs a script once per call in one pipeline (one round trip), each call atomic on its own. A
 * first use sends the script whole in the first call only: the server runs them in order, so the
 * calls after it find it by SHA.
 */
export async function runScripts(
  client: Redis,
  script: RedisScript,
  calls: readonly ScriptCall[],
): Promise<unknown[]> {
  if (calls.length === 0) return [];
  const whole = !loadedOn(client).has(script.sha);
  const pipeline = client.pipeline();
  calls.forEach(({ keys, args }, i) => {
    if (i === 0 && whole) pipeline.eval(script.lua, keys.length, ...keys, ...args);
    else pipeline.evalsha(script.sha, keys.length, ...keys, ...args);
  });
  const replies = (await pipeline.exec()) ?? [];
  return Promise.all(
    calls.map(async (call, i) => {
      const [error, reply] = replies[i] ?? [new Error('no reply'), undefined];
      if (error === null) {
        loadedOn(client).add(script.sha);
        return reply;
      }
      // Forgotten between the two sends: that one call again, whole.
      if (isNoScript(error)) return runScript(client, script, call);
      throw error;
    }),
  );
}
