'use strict';
// Shared by the retrieval benchmarks (retrieval, retrieval-1m): the deterministic generated corpus
// (text and queries), its embedding, latency statistics and the brute-force exact top k that the
// vector side's recall is measured against.
const fs = require('node:fs');
const { round } = require('./load');

const { rng } = require('./rng');

const EN = (
  'account password reset login email invoice billing refund order shipping delivery tracking package return exchange warranty ' +
  'subscription plan upgrade downgrade cancel trial payment card bank transfer receipt tax address profile settings notification ' +
  'security two factor authentication code device mobile app desktop browser cookie privacy data export import report dashboard ' +
  'integration api key webhook token limit quota error timeout support ticket agent chat hours holiday office phone contact ' +
  'product price discount coupon voucher gift stock size color material care instructions manual setup install update version ' +
  'bug crash slow sync backup restore delete archive share team member role permission admin owner invite language region currency'
).split(' ');
const DE = 'rechnung lieferung passwort konto bestellung rücksendung versand zahlung kündigung vertrag kunde hilfe öffnungszeiten garantie umtausch preis rabatt gutschein anmeldung sicherheit'.split(' ');
const FR = 'facture livraison mot de passe compte commande retour expédition paiement abonnement client aide horaires garantie échange prix remise connexion sécurité'.split(' ');
const ES = 'factura envío contraseña cuenta pedido devolución pago suscripción cliente ayuda horario garantía cambio precio descuento cupón seguridad'.split(' ');
const CJK = ['密码', '重置', '账户', '登录', '订单', '发货', '退款', '发票', '支付', '客服', 'パスワード', '再設定', '注文', '配送', '返品', '請求書', 'お問い合わせ', '営業時間', '비밀번호', '주문', '배송', '환불'];
const THAI = ['รหัสผ่าน', 'บัญชี', 'คำสั่งซื้อ', 'การจัดส่ง', 'คืนเงิน', 'ใบแจ้งหนี้', 'ชำระเงิน', 'ติดต่อ'];
const SYLLABLES = 'ka lo mi ne tu ra vo si pe da fu gi ho ju ly mo nu pa qi re sa te va wi xo ye zu'.split(' ');

function vocabulary() {
  const r = rng(7);
  const tail = new Set();
  while (tail.size < 3000) {
    const n = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    tail.add(w);
  }
  // Rank order for the Zipf draw: the support words first, other languages interleaved, tail last.
  const head = [];
  for (let i = 0; i < EN.length; i++) {
    head.push(EN[i]);
    if (i < DE.length) head.push(DE[i]);
    if (i < FR.length) head.push(FR[i]);
    if (i < ES.length) head.push(ES[i]);
  }
  return [...head, ...tail];
}

function zipfSampler(n, s, r) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / Math.pow(i + 1, s);
    cdf[i] = sum;
  }
  return () => {
    const x = r() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/**
 * The chunk generator: one seeded sequence of {title, text} (Zipf-distributed mixed vocabulary,
 * some CJK and Thai), the same for every caller, so it can be streamed (retrieval-1m) or kept
 * whole (retrieval).
 */
function chunkGenerator(seed = 42) {
  const words = vocabulary();
  const r = rng(seed);
  const draw = zipfSampler(words.length, 1.0, r);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const sentence = (len) => Array.from({ length: len }, () => words[draw()]).join(' ');
  const next = () => {
    let text = `${sentence(45 + Math.floor(r() * 40))}.`;
    const roll = r();
    if (roll < 0.06) text += ` ${Array.from({ length: 3 + Math.floor(r() * 4) }, () => pick(CJK)).join('')}。`;
    else if (roll < 0.09) text += ` ${Array.from({ length: 3 + Math.floor(r() * 3) }, () => pick(THAI)).join('')}`;
    return { title: sentence(3), text };
  };
  return { r, pick, sentence, next };
}

/** A query made of 4-7 consecutive words of a chunk's text (sometimes prefixed "how do I"). */
function queryFromText(text, r) {
  const w = text.replace(/[.。]/g, '').split(' ');
  const start = Math.floor(r() * Math.max(1, w.length - 8));
  return `${r() < 0.3 ? 'how do I ' : ''}${w.slice(start, start + 4 + Math.floor(r() * 4)).join(' ')}`;
}

/** n chunks and `queryCount` queries (60 % words of a random chunk, 40 % random text), all in memory. */
function generateCorpus(n, queryCount) {
  const g = chunkGenerator(42);
  const { r, pick, sentence } = g;
  const chunks = [];
  for (let i = 0; i < n; i++) chunks.push(g.next());
  const queries = [];
  for (let i = 0; i < queryCount; i++) {
    if (r() < 0.6) {
      const src = chunks[Math.floor(r() * n)];
      queries.push(queryFromText(src.text, r));
    } else if (r() < 0.1) {
      queries.push(Array.from({ length: 2 + Math.floor(r() * 3) }, () => pick(CJK)).join(''));
    } else {
      queries.push(sentence(3 + Math.floor(r() * 6)));
    }
  }
  return { chunks, queries };
}

/**
 * The embedder of the retrieval benchmarks: the project's hashing embedder when it is built
 * (`hashingJs`), else seeded clustered random unit vectors (one sequence across calls, so batches
 * embedded in order give the same vectors as one call). embed(texts) -> Float32Array (n x dim).
 */
function benchEmbedder(hashingJs, dim, ctx) {
  if (fs.existsSync(hashingJs)) {
    const { HashingEmbeddings } = require(hashingJs);
    const e = new HashingEmbeddings({ dimensions: dim });
    return {
      id: e.id,
      source: `hashing embedder (${e.id}, dist/apps/knowledge/src/embeddings/hashing-embeddings.js)`,
      embed(texts) {
        const out = new Float32Array(texts.length * dim);
        texts.forEach((t, i) => out.set(e.embedSync(t), i * dim));
        return out;
      },
    };
  }
  // Clustered random unit vectors: 200 centres, each vector = centre + noise.
  ctx.log('hashing embedder not built: seeded clustered random vectors');
  const r = rng(99);
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const centres = Array.from({ length: 200 }, () => Float32Array.from({ length: dim }, gauss));
  return {
    id: `bench-random-v1-${dim}`,
    source: 'seeded clustered random unit vectors (200 clusters)',
    embed(texts) {
      const out = new Float32Array(texts.length * dim);
      texts.forEach((_, i) => {
        const c = centres[Math.floor(r() * centres.length)];
        let norm = 0;
        for (let d = 0; d < dim; d++) {
          const x = c[d] + 0.8 * gauss();
          out[i * dim + d] = x;
          norm += x * x;
        }
        norm = Math.sqrt(norm);
        for (let d = 0; d < dim; d++) out[i * dim + d] /= norm;
      });
      return out;
    },
  };
}

/** Texts -> one Float32Array of unit vectors (n x dim), with the embedder used. */
function embedAll(texts, ctx, hashingJs, dim) {
  const e = benchEmbedder(hashingJs, dim, ctx);
  const t0 = Date.now();
  const vectors = e.embed(texts);
  ctx.log(`embedded ${texts.length} texts with ${e.id} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { vectors, embedder: e.id, source: e.source };
}

// ---------------------------------------------------------------------------------------------
function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: round(percentile(s, 50), 2), p90: round(percentile(s, 90), 2), p99: round(percentile(s, 99), 2), max: round(s[s.length - 1], 2), mean: round(s.reduce((a, b) => a + b, 0) / s.length, 2), n: s.length };
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** The baseline: exact top-k by a plain JavaScript dot product with every vector. */
function bruteForce(vectors, n, bots, query, botId, k, DIM) {
  const topS = new Float64Array(k).fill(-Infinity);
  const topI = new Int32Array(k).fill(-1);
  for (let i = 0, b = 0; i < n; i++, b += DIM) {
    if (botId !== null && bots[i] !== null && bots[i] !== botId) continue;
    let s = 0;
    for (let d = 0; d < DIM; d++) s += vectors[b + d] * query[d];
    if (s > topS[k - 1]) {
      let j = k - 1;
      while (j > 0 && topS[j - 1] < s) {
        topS[j] = topS[j - 1];
        topI[j] = topI[j - 1];
        j--;
      }
      topS[j] = s;
      topI[j] = i;
    }
  }
  return { indices: Array.from(topI).filter((i) => i >= 0), scores: Array.from(topS) };
}

module.exports = { rng, CJK, THAI, chunkGenerator, queryFromText, generateCorpus, benchEmbedder, embedAll, percentile, stats, now, bruteForce };
