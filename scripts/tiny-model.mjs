// A tiny random-weight llama GGUF made from a vocab-only GGUF (llama.cpp's models/ggml-vocab-*.gguf): real llama
// architecture, real tokenizer, seeded random F32 weights. For protocol, timing and load tests of a real llama-server
// (the text is gibberish by construction). Spec: shared/docs/reference/local-inference.md §8.1 (GGUF) and §8.2.
//
//   node scripts/tiny-model.mjs VOCAB.gguf OUT.gguf [n_embd=64] [n_layer=2] [n_head=4] [n_ff=256] [ctx=4096] [seed=1]
//   ALLOW_EOS=1 keeps the EOS token emittable (by default every request runs to max_tokens).
//
// The same arguments give a byte-identical file.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TextDecoder } from 'node:util';
import { fileURLToPath } from 'node:url';

// ---- GGUF v3 (all little-endian) ----------------------------------------------------------------------------------

export const GGUF_TYPE = Object.freeze({
  U8: 0,
  I8: 1,
  U16: 2,
  I16: 3,
  U32: 4,
  I32: 5,
  F32: 6,
  BOOL: 7,
  STR: 8,
  ARR: 9,
  U64: 10,
  I64: 11,
  F64: 12,
});
export const GGML_TYPE = Object.freeze({ F32: 0, F16: 1 });
const DEFAULT_ALIGNMENT = 32;
const SCALAR_SIZE = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

/**
 * Read a GGUF v3 file's header: `{ version, metadata, tensors, alignment, dataOffset }`.
 * `metadata` is a Map key → `{ type, value }`; an array value is `{ itemType, items }` (items of nested arrays are again
 * `{ itemType, items }`); U64/I64 values are BigInts, BOOL values booleans, strings JS strings (decoded as UTF-8).
 * `tensors` is `[{ name, dims (ne0 first, numbers), type (ggml type), offset (relative to dataOffset) }]`.
 * Tensor data is not read.
 */
export function readGguf(buffer) {
  let pos = 0;
  const need = (n) => {
    if (pos + n > buffer.length) throw new Error(`GGUF: unexpected end of data at byte ${pos}`);
  };
  const u32 = () => {
    need(4);
    const v = buffer.readUInt32LE(pos);
    pos += 4;
    return v;
  };
  const u64 = () => {
    need(8);
    const v = buffer.readBigUInt64LE(pos);
    pos += 8;
    return v;
  };
  const count = () => {
    const v = u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`GGUF: count ${v} too large`);
    return Number(v);
  };
  const str = () => {
    const n = count();
    need(n);
    const s = buffer.toString('utf8', pos, pos + n);
    pos += n;
    return s;
  };
  const value = (type) => {
    switch (type) {
      case GGUF_TYPE.STR:
        return str();
      case GGUF_TYPE.ARR: {
        const itemType = u32();
        const n = count();
        const items = new Array(n);
        for (let i = 0; i < n; i++) items[i] = value(itemType);
        return { itemType, items };
      }
      default: {
        const size = SCALAR_SIZE[type];
        if (size === undefined) throw new Error(`GGUF: unknown value type ${type} at byte ${pos - 4}`);
        need(size);
        const at = pos;
        pos += size;
        switch (type) {
          case GGUF_TYPE.U8:
            return buffer.readUInt8(at);
          case GGUF_TYPE.I8:
            return buffer.readInt8(at);
          case GGUF_TYPE.U16:
            return buffer.readUInt16LE(at);
          case GGUF_TYPE.I16:
            return buffer.readInt16LE(at);
          case GGUF_TYPE.U32:
            return buffer.readUInt32LE(at);
          case GGUF_TYPE.I32:
            return buffer.readInt32LE(at);
          case GGUF_TYPE.F32:
            return buffer.readFloatLE(at);
          case GGUF_TYPE.BOOL:
            return buffer.readUInt8(at) !== 0;
          case GGUF_TYPE.U64:
            return buffer.readBigUInt64LE(at);
          case GGUF_TYPE.I64:
            return buffer.readBigInt64LE(at);
          default: // F64
            return buffer.readDoubleLE(at);
        }
      }
    }
  };

  need(4);
  if (buffer.toString('latin1', 0, 4) !== 'GGUF') throw new Error('GGUF: bad magic (not a GGUF file)');
  pos = 4;
  const version = u32();
  // v2 has the same layout (v3 only added big-endian files, which this reader does not handle).
  if (version !== 2 && version !== 3) throw new Error(`GGUF: version ${version} is not supported (2 or 3 only)`);
  const tensorCount = count();
  const kvCount = count();
  const metadata = new Map();
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    const type = u32();
    metadata.set(key, { type, value: value(type) });
  }
  const tensors = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = str();
    const nDims = u32();
    const dims = [];
    for (let d = 0; d < nDims; d++) dims.push(count());
    const type = u32();
    const offset = count();
    tensors.push({ name, dims, type, offset });
  }
  const alignment = alignmentOf(metadata);
  return { version, metadata, tensors, alignment, dataOffset: alignUp(pos, alignment) };
}

/**
 * Write a GGUF v3 file. `metadata`: an iterable of [key, { type, value }] (a Map from readGguf works; values as readGguf
 * returns them). `tensors`: `[{ name, dims (ne0 first), type?, data }]` with `data` a Float32Array (type F32, default)
 * or a Buffer/Uint8Array of the raw bytes. Data is aligned to `general.alignment` (default 32).
 */
export function writeGguf(metadata, tensors) {
  const entries = [...metadata];
  const alignment = alignmentOf(new Map(entries));
  const encoded = new Map();
  const bytesOf = (s) => {
    let b = encoded.get(s);
    if (!b) encoded.set(s, (b = Buffer.from(s, 'utf8')));
    return b;
  };
  const valueSize = (type, v) => {
    if (type === GGUF_TYPE.STR) return 8 + bytesOf(v).length;
    if (type === GGUF_TYPE.ARR) {
      let n = 12;
      const fixed = SCALAR_SIZE[v.itemType];
      if (fixed !== undefined) return n + fixed * v.items.length;
      for (const item of v.items) n += valueSize(v.itemType, item);
      return n;
    }
    const size = SCALAR_SIZE[type];
    if (size === undefined) throw new Error(`GGUF: unknown value type ${type}`);
    return size;
  };
  const datas = tensors.map((t) => {
    const d = t.data;
    return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  });

  let headerSize = 4 + 4 + 8 + 8;
  for (const [key, { type, value }] of entries) headerSize += 8 + bytesOf(key).length + 4 + valueSize(type, value);
  for (const t of tensors) headerSize += 8 + bytesOf(t.name).length + 4 + 8 * t.dims.length + 4 + 8;
  const dataStart = alignUp(headerSize, alignment);
  const offsets = [];
  let dataSize = 0;
  for (const d of datas) {
    offsets.push(dataSize);
    dataSize = alignUp(dataSize + d.length, alignment);
  }

  const out = Buffer.alloc(dataStart + dataSize); // zero-filled: the padding
  let pos = 0;
  const u32 = (v) => {
    out.writeUInt32LE(v, pos);
    pos += 4;
  };
  const u64 = (v) => {
    out.writeBigUInt64LE(BigInt(v), pos);
    pos += 8;
  };
  const str = (s) => {
    const b = bytesOf(s);
    u64(b.length);
    b.copy(out, pos);
    pos += b.length;
  };
  const value = (type, v) => {
    switch (type) {
      case GGUF_TYPE.STR:
        return str(v);
      case GGUF_TYPE.ARR:
        u32(v.itemType);
        u64(v.items.length);
        for (const item of v.items) value(v.itemType, item);
        return;
      case GGUF_TYPE.U8:
        out.writeUInt8(v, pos);
        break;
      case GGUF_TYPE.I8:
        out.writeInt8(v, pos);
        break;
      case GGUF_TYPE.U16:
        out.writeUInt16LE(v, pos);
        break;
      case GGUF_TYPE.I16:
        out.writeInt16LE(v, pos);
        break;
      case GGUF_TYPE.U32:
        out.writeUInt32LE(v, pos);
        break;
      case GGUF_TYPE.I32:
        out.writeInt32LE(v, pos);
        break;
      case GGUF_TYPE.F32:
        out.writeFloatLE(v, pos);
        break;
      case GGUF_TYPE.BOOL:
        out.writeUInt8(v ? 1 : 0, pos);
        break;
      case GGUF_TYPE.U64:
        out.writeBigUInt64LE(BigInt(v), pos);
        break;
      case GGUF_TYPE.I64:
        out.writeBigInt64LE(BigInt(v), pos);
        break;
      case GGUF_TYPE.F64:
        out.writeDoubleLE(v, pos);
        break;
      default:
        throw new Error(`GGUF: unknown value type ${type}`);
    }
    pos += SCALAR_SIZE[type];
  };

  out.write('GGUF', 0, 'latin1');
  pos = 4;
  u32(3);
  u64(tensors.length);
  u64(entries.length);
  for (const [key, { type, value: v }] of entries) {
    str(key);
    u32(type);
    value(type, v);
  }
  tensors.forEach((t, i) => {
    str(t.name);
    u32(t.dims.length);
    for (const d of t.dims) u64(d);
    u32(t.type ?? GGML_TYPE.F32);
    u64(offsets[i]);
  });
  if (pos !== headerSize) throw new Error(`GGUF: header size mismatch (${pos} != ${headerSize})`);
  datas.forEach((d, i) => d.copy(out, dataStart + offsets[i]));
  return out;
}

function alignmentOf(metadata) {
  const entry = metadata.get('general.alignment');
  const alignment = entry ? Number(entry.value) : DEFAULT_ALIGNMENT;
  if (!Number.isInteger(alignment) || alignment <= 0) throw new Error(`GGUF: bad general.alignment ${alignment}`);
  return alignment;
}

const toBuffer = (bytes) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
const alignUp = (n, alignment) => Math.ceil(n / alignment) * alignment;

// ---- the tiny llama --------------------------------------------------------------------------------------------------

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

export const DEFAULTS = Object.freeze({ nEmbd: 64, nLayer: 2, nHead: 4, nFf: 256, ctx: 4096, seed: 1, allowEos: false });

/** GPT-2's byte-level BPE alphabet, inverted: code point → byte. */
function gpt2ByteDecoder() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const printable = new Set(bs);
  const decoder = new Map(bs.map((b) => [b, b]));
  let n = 0;
  for (let b = 0; b < 256; b++) if (!printable.has(b)) decoder.set(256 + n++, b);
  return decoder;
}

/** The raw bytes of a token, or null when it has none (a character outside GPT-2's byte alphabet). */
function tokenBytes(token, bpe, byteDecoder) {
  if (!bpe) return Buffer.from(token.replaceAll('\u2581', ' '), 'utf8');
  const bytes = [];
  for (const ch of token) {
    const b = byteDecoder.get(ch.codePointAt(0));
    if (b === undefined) return null;
    bytes.push(b);
  }
  return Buffer.from(bytes);
}

/**
 * Which tokens the tiny model may emit (§8.2 item 6): NORMAL type (1; all when the vocab has no token types) and bytes
 * that are non-empty, complete, valid UTF-8 on their own. EOS is banned unless `allowEos`.
 */
export function analyzeVocab(vocab, options = {}) {
  const allowEos = options.allowEos ?? DEFAULTS.allowEos;
  const { metadata } = vocab instanceof Uint8Array ? readGguf(toBuffer(vocab)) : vocab;
  const tokens = metadata.get('tokenizer.ggml.tokens')?.value.items;
  if (!tokens) throw new Error('vocab GGUF has no tokenizer.ggml.tokens');
  const types = metadata.get('tokenizer.ggml.token_type')?.value.items;
  const bpe = metadata.get('tokenizer.ggml.model')?.value === 'gpt2';
  const eos = metadata.get('tokenizer.ggml.eos_token_id')?.value;
  const eosId = eos === undefined ? -1 : Number(eos);
  const byteDecoder = gpt2ByteDecoder();
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const emittable = new Uint8Array(tokens.length);
  let emittableCount = 0;
  for (let id = 0; id < tokens.length; id++) {
    let ok = false;
    if (allowEos && id === eosId) ok = true;
    else if (id !== eosId && (types === undefined || types[id] === 1)) {
      const bytes = tokenBytes(tokens[id], bpe, byteDecoder);
      if (bytes && bytes.length > 0) {
        try {
          utf8.decode(bytes);
          ok = true;
        } catch {
          ok = false;
        }
      }
    }
    emittable[id] = ok ? 1 : 0;
    if (ok) emittableCount++;
  }
  return {
    metadata,
    nVocab: tokens.length,
    tokenizerModel: metadata.get('tokenizer.ggml.model')?.value,
    emittable,
    emittableCount,
  };
}

/** mulberry32 uniform [0, 1) → Box–Muller normal (one cos sample per pair of uniforms). */
function gaussian(seed) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => {
    const u1 = uniform();
    const u2 = uniform();
    return Math.sqrt(-2 * Math.log(u1 + 1e-12)) * Math.cos(2 * Math.PI * u2);
  };
}

function checkPositiveInt(name, v) {
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer, got ${v}`);
}

/**
 * The tiny random llama GGUF (§8.2) for a vocab-only GGUF, as a Buffer. Options (defaults): nEmbd 64, nLayer 2, nHead 4,
 * nFf 256, ctx 4096, seed 1, allowEos false.
 */
export function makeTinyLlama(vocabBuffer, options = {}) {
  return makeTinyLlamaWithInfo(vocabBuffer, options).buffer;
}

/** As makeTinyLlama, plus `info`: `{ size, nVocab, emittable, nEmbd, nLayer, nHead, nHeadKv, nFf, ctx, seed, allowEos }`. */
export function makeTinyLlamaWithInfo(vocabBuffer, options = {}) {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const { nEmbd, nLayer, nHead, nFf, ctx, seed, allowEos } = o;
  for (const [name, v] of Object.entries({ nEmbd, nLayer, nHead, nFf, ctx })) checkPositiveInt(name, v);
  if (!Number.isInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
  if (nEmbd % nHead !== 0) throw new Error(`n_embd (${nEmbd}) must be a multiple of n_head (${nHead})`);
  const nHeadKv = nHead;
  const vocab = analyzeVocab(vocabBuffer, { allowEos });
  const { nVocab } = vocab;
  const source = vocab.metadata.get('general.name')?.value;

  const metadata = new Map();
  const put = (key, type, value) => metadata.set(key, { type, value });
  put('general.architecture', GGUF_TYPE.STR, 'llama');
  put('general.name', GGUF_TYPE.STR, `tiny-random-llama-${typeof source === 'string' && source ? source : 'vocab'}`);
  put('general.file_type', GGUF_TYPE.U32, 0);
  put('llama.context_length', GGUF_TYPE.U32, ctx);
  put('llama.embedding_length', GGUF_TYPE.U32, nEmbd);
  put('llama.block_count', GGUF_TYPE.U32, nLayer);
  put('llama.feed_forward_length', GGUF_TYPE.U32, nFf);
  put('llama.attention.head_count', GGUF_TYPE.U32, nHead);
  put('llama.attention.head_count_kv', GGUF_TYPE.U32, nHeadKv);
  put('llama.rope.dimension_count', GGUF_TYPE.U32, nEmbd / nHead);
  put('llama.vocab_size', GGUF_TYPE.U32, nVocab);
  put('llama.attention.layer_norm_rms_epsilon', GGUF_TYPE.F32, 1e-5);
  put('llama.rope.freq_base', GGUF_TYPE.F32, 10000);
  for (const [key, entry] of vocab.metadata) if (key.startsWith('tokenizer.')) metadata.set(key, entry);
  if (!metadata.has('tokenizer.chat_template')) put('tokenizer.chat_template', GGUF_TYPE.STR, CHATML_TEMPLATE);

  const gauss = gaussian(seed);
  const random = (n) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = gauss() * 0.02;
    return a;
  };
  const ones = (n) => new Float32Array(n).fill(1);
  const tensors = [];
  const add = (name, dims, data) => tensors.push({ name, dims, type: GGML_TYPE.F32, data });
  const tokenEmbd = random(nEmbd * nVocab);
  add('token_embd.weight', [nEmbd, nVocab], tokenEmbd);
  add('output_norm.weight', [nEmbd], ones(nEmbd));
  const output = random(nEmbd * nVocab);
  add('output.weight', [nEmbd, nVocab], output);
  const kvDim = (nEmbd / nHead) * nHeadKv;
  for (let i = 0; i < nLayer; i++) {
    const p = `blk.${i}.`;
    add(`${p}attn_norm.weight`, [nEmbd], ones(nEmbd));
    add(`${p}attn_q.weight`, [nEmbd, nEmbd], random(nEmbd * nEmbd));
    add(`${p}attn_k.weight`, [nEmbd, kvDim], random(nEmbd * kvDim));
    add(`${p}attn_v.weight`, [nEmbd, kvDim], random(nEmbd * kvDim));
    add(`${p}attn_output.weight`, [nEmbd, nEmbd], random(nEmbd * nEmbd));
    add(`${p}ffn_norm.weight`, [nEmbd], ones(nEmbd));
    add(`${p}ffn_gate.weight`, [nEmbd, nFf], random(nEmbd * nFf));
    add(`${p}ffn_up.weight`, [nEmbd, nFf], random(nEmbd * nFf));
    add(`${p}ffn_down.weight`, [nFf, nEmbd], random(nFf * nEmbd));
  }
  // The banned-token trick: a constant 1 in dim 0 of every embedding, and −4 in dim 0 of every banned token's output
  // row (0 for emittable ones). After RMSNorm dim 0 is about √n_embd, so a banned token's logit drops by ~4·√n_embd.
  for (let id = 0; id < nVocab; id++) {
    tokenEmbd[id * nEmbd] = 1;
    output[id * nEmbd] = vocab.emittable[id] ? 0 : -4;
  }

  const buffer = writeGguf(metadata, tensors);
  return {
    buffer,
    info: {
      size: buffer.length,
      nVocab,
      emittable: vocab.emittableCount,
      nEmbd,
      nLayer,
      nHead,
      nHeadKv,
      nFf,
      ctx,
      seed,
      allowEos,
    },
  };
}

/** Generate OUT from VOCAB (written to a temporary name, then renamed); returns the info. */
export function writeTinyLlama(vocabPath, outPath, options = {}) {
  const { buffer, info } = makeTinyLlamaWithInfo(readFileSync(vocabPath), options);
  const tmp = `${outPath}.tmp-${process.pid}`;
  writeFileSync(tmp, buffer);
  renameSync(tmp, outPath);
  return info;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [vocabPath, outPath, ...rest] = process.argv.slice(2);
  if (!vocabPath || !outPath || rest.length > 6) {
    process.stderr.write(
      'usage: node scripts/tiny-model.mjs VOCAB.gguf OUT.gguf [n_embd=64] [n_layer=2] [n_head=4] [n_ff=256] [ctx=4096] [seed=1]\n' +
        '       ALLOW_EOS=1 keeps EOS emittable\n',
    );
    process.exit(2);
  }
  const names = ['nEmbd', 'nLayer', 'nHead', 'nFf', 'ctx', 'seed'];
  const options = { allowEos: process.env.ALLOW_EOS === '1' };
  rest.forEach((arg, i) => {
    const v = Number(arg);
    if (!/^-?\d+$/.test(arg) || !Number.isSafeInteger(v)) {
      process.stderr.write(`tiny-model: ${names[i]} must be an integer, got ${JSON.stringify(arg)}\n`);
      process.exit(2);
    }
    options[names[i]] = v;
  });
  try {
    const started = performance.now();
    const info = writeTinyLlama(vocabPath, outPath, options);
    const mb = (info.size / 1e6).toFixed(1);
    process.stdout.write(
      `wrote ${outPath}: ${info.size} bytes (${mb} MB) in ${((performance.now() - started) / 1000).toFixed(2)} s\n` +
        `vocab ${info.nVocab} tokens, ${info.emittable} emittable${info.allowEos ? ' (EOS allowed)' : ''}\n` +
        `n_embd ${info.nEmbd}, n_layer ${info.nLayer}, n_head ${info.nHead}, n_head_kv ${info.nHeadKv}, ` +
        `n_ff ${info.nFf}, ctx ${info.ctx}, seed ${info.seed}\n`,
    );
  } catch (error) {
    process.stderr.write(`tiny-model: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
