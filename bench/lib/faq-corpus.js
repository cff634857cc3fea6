'use strict';
// A help centre of product FAQ pages, generated deterministically from a seed: one document per
// product, each of `chunksPerDocument` chunks of 2-4 "Q: ...? / A: ..." pairs (about 500-1000
// characters, the size the ingestion chunker makes), every question of a product different
// (warranty, delivery to a city, error codes, spare parts, compatibility, cleaning, ...), plus
// visitor questions drawn from the pages (asked as written, lower case without the question
// mark, or with a greeting) and a share of questions the knowledge cannot answer.

const { rng } = require('./rng');

const BRANDS = [
  'Aurora', 'Nordlys', 'Vega', 'Kestrel', 'Lumio', 'Brava', 'Solenne', 'Tundra', 'Orbis', 'Kaito', 'Marlow', 'Zephyr', 'Halden', 'Pico', 'Rivet', 'Sable',
  'Terra', 'Volta', 'Wren', 'Yuki', 'Alder', 'Bexley', 'Corvo', 'Dune', 'Elara', 'Fjord', 'Garnet', 'Heron', 'Iris', 'Juno', 'Koda', 'Lark', 'Mistral',
  'Nimbus', 'Onyx', 'Pella', 'Quill', 'Rosa', 'Sirius', 'Tilde',
];
const PRODUCTS = [
  'kettle', 'heat pump', 'e-bike', 'wifi router', 'espresso machine', 'robot vacuum', 'solar panel kit', 'water filter', 'standing desk', 'baby monitor',
  'smart thermostat', 'air purifier', 'dishwasher', 'washing machine', 'electric toothbrush', 'blender', 'rice cooker', 'dehumidifier', 'smart lock',
  'security camera', 'electric scooter', 'pressure cooker', 'induction hob', 'cordless drill', 'sound bar',
];
const CITIES = [
  'Lyon', 'Hamburg', 'Nairobi', 'Lisbon', 'Kraków', 'Osaka', 'Toronto', 'Melbourne', 'Valencia', 'Rotterdam', 'Gothenburg', 'Porto', 'Leeds', 'Dublin',
  'Brno', 'Turin', 'Ghent', 'Aarhus', 'Tampere', 'Graz', 'Bergen', 'Cork', 'Bilbao', 'Nantes', 'Leipzig', 'Malmö', 'Utrecht', 'Salzburg', 'Basel',
  'Mombasa', 'Accra', 'Lagos', 'Cape Town', 'Durban', 'Auckland', 'Perth', 'Vancouver', 'Calgary', 'Denver', 'Austin',
];
const PARTS = ['heating element', 'motor', 'battery', 'control board', 'pump', 'display', 'fan', 'filter housing', 'power supply', 'sensor', 'lid hinge', 'water tank'];
const WEAR = ['seals', 'filters', 'brushes', 'gaskets', 'fuses', 'rubber feet'];
const FAULTS = ['is overheating', 'cannot reach the set temperature', 'reports a blocked air flow', 'lost its connection to the app', 'detected low water pressure', 'found the battery voltage too low', 'sees a jammed motor', 'reads an implausible sensor value'];
const FIXES = ['unplug it for ten minutes', 'clean the filter under running water', 'check that the hose is not bent', 'hold the power button for five seconds', 'remove the battery and put it back', 'let it cool down for half an hour'];
const SPARES = ['filter', 'power cable', 'charger', 'remote control', 'seal kit', 'wall bracket', 'carry bag', 'battery pack', 'brush head', 'glass jug', 'dust bag', 'mounting plate'];
const PLATFORMS = ['Google Home', 'Apple HomeKit', 'Amazon Alexa', 'Home Assistant', 'Samsung SmartThings', 'Zigbee hubs', 'Matter controllers', 'IFTTT'];
const COLOURS = ['matte black', 'white', 'sage green', 'slate grey', 'sand beige', 'navy blue', 'terracotta', 'silver', 'rose gold', 'forest green'];
const LANGUAGES = ['German', 'French', 'Spanish', 'Italian', 'Dutch', 'Polish', 'Portuguese', 'Swedish', 'Japanese', 'Swahili'];
const APPS = ['the Home app', 'our mobile app', 'the web dashboard', 'the desktop companion app'];
const OFF_TOPIC = [
  'Do you sell pizza?', 'What is the capital of Mongolia?', 'Who won the football world cup in 1998?', 'Can you recommend a good novel about sailing?',
  'How tall is the Eiffel tower?', 'What is the weather like on Mars today?', 'Do you offer guitar lessons for beginners?', 'Which planet has the most moons?',
  'How do I bake sourdough bread at home?', 'What time does the zoo open on Sundays?',
];

/** Topic templates: each makes one question/answer pair about product `p` from the random source `r`. */
function templates(p, r) {
  const pick = (list) => list[Math.floor(r() * list.length)];
  const n = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const price = (lo, hi) => `${n(lo, hi)}.${pick(['00', '50', '90', '95', '99'])} euros`;
  const out = [];
  out.push(() => ({ q: `How much does the ${p} cost?`, a: `The ${p} costs ${price(80, 1400)} including VAT. The version with the extended accessory kit costs ${price(120, 1700)}, and both are delivered free of charge within the EU.` }));
  out.push(() => ({ q: `How long is the warranty on the ${p}?`, a: `The ${p} has a ${n(2, 5)}-year warranty that covers the ${pick(PARTS)} and the ${pick(PARTS)}. Wear parts such as ${pick(WEAR)} are covered for ${n(6, 12)} months. Register the serial number in ${pick(APPS)} to extend the warranty by one year.` }));
  for (const city of CITIES) {
    out.push(() => ({ q: `How long does delivery of the ${p} to ${city} take?`, a: `Orders of the ${p} to ${city} arrive within ${n(1, 6)} working days. Express delivery to ${city} costs ${price(9, 35)} and arrives the next working day when you order before ${n(11, 15)}:00.` }));
    out.push(() => ({ q: `Do you install the ${p} in ${city}?`, a: `Yes, a certified partner installs the ${p} in ${city} and the surrounding area. Installation costs ${price(60, 260)} and takes about ${n(1, 4)} hours; book a slot after checkout.` }));
  }
  for (let i = 0; i < 40; i++) {
    const code = `E${String(n(1, 99)).padStart(2, '0')}`;
    out.push(() => ({ q: `What does error ${code} mean on the ${p}?`, a: `Error ${code} means that the ${pick(PARTS)} ${pick(FAULTS)}. Switch the ${p} off, ${pick(FIXES)}, and switch it on again. If ${code} comes back, contact support with the serial number from the label on the back.` }));
  }
  for (const spare of SPARES) {
    out.push(() => ({ q: `Where can I buy a replacement ${spare} for the ${p}?`, a: `Replacement ${spare}s for the ${p} are sold in our online shop for ${price(8, 90)}. Stores in ${pick(CITIES)} and ${pick(CITIES)} keep them in stock, and they ship within ${n(1, 3)} working days.` }));
  }
  for (const platform of PLATFORMS) {
    const yes = r() < 0.6;
    out.push(() => ({ q: `Does the ${p} work with ${platform}?`, a: yes ? `Yes, the ${p} works with ${platform} since firmware ${n(2, 6)}.${n(0, 9)}. Add it in ${pick(APPS)} under Settings, then Integrations.` : `Not yet: ${platform} support for the ${p} is planned for the next firmware release. Until then you can control it from ${pick(APPS)}.` }));
  }
  for (const part of PARTS) {
    out.push(() => ({ q: `How do I clean the ${part} of the ${p}?`, a: `Unplug the ${p} and let it cool down. Wipe the ${part} with a soft damp cloth and a drop of mild detergent, never with abrasive cleaners. Clean it every ${n(2, 12)} weeks, more often with hard water.` }));
  }
  for (const colour of COLOURS) {
    const yes = r() < 0.5;
    out.push(() => ({ q: `Is the ${p} available in ${colour}?`, a: yes ? `Yes, the ${p} comes in ${colour}, ${pick(COLOURS)} and ${pick(COLOURS)}. The ${colour} version ships within ${n(2, 10)} days.` : `No, the ${p} is not made in ${colour}. It is available in ${pick(COLOURS)} and ${pick(COLOURS)}.` }));
  }
  for (const language of LANGUAGES) {
    out.push(() => ({ q: `Is there a manual for the ${p} in ${language}?`, a: `Yes, the ${language} manual of the ${p} is in the box and can be downloaded as a PDF from the product page. It has ${n(16, 80)} pages, with the safety instructions first.` }));
  }
  out.push(() => ({ q: `How much power does the ${p} use?`, a: `The ${p} uses ${n(15, 2400)} watts in operation and ${(r() * 1.5 + 0.1).toFixed(1)} watts on standby. Its energy label is ${pick(['A', 'B', 'C'])}.` }));
  out.push(() => ({ q: `What are the dimensions of the ${p}?`, a: `The ${p} measures ${n(10, 120)} x ${n(10, 80)} x ${n(5, 60)} cm and weighs ${(r() * 30 + 0.5).toFixed(1)} kg. The packaging adds about ${n(3, 12)} cm on each side.` }));
  out.push(() => ({ q: `How do I update the firmware of the ${p}?`, a: `Open ${pick(APPS)}, select the ${p} and tap Check for updates. Keep it connected to power during the update, which takes about ${n(2, 15)} minutes. Updates install automatically at night when auto-update is on.` }));
  out.push(() => ({ q: `Can I pay for the ${p} in instalments?`, a: `Yes, you can pay for the ${p} in ${pick(['3', '6', '12', '24'])} monthly instalments without interest when the order is over 200 euros. Choose instalments at checkout; approval takes about a minute.` }));
  out.push(() => ({ q: `Can I return the ${p} after using it?`, a: `Yes, you can return the ${p} within ${pick(['14', '30', '60'])} days, also after using it, as long as it is complete and undamaged. The refund goes back to the card that paid within ${n(3, 10)} working days.` }));
  out.push(() => ({ q: `How loud is the ${p}?`, a: `The ${p} runs at about ${n(28, 75)} dB in normal mode and ${n(20, 40)} dB in night mode, roughly as loud as a quiet conversation.` }));
  out.push(() => ({ q: `How do I reset the ${p} to factory settings?`, a: `Hold the power button of the ${p} for ${n(5, 20)} seconds until the light blinks ${pick(['blue', 'white', 'orange'])}. The reset deletes the wifi settings and schedules but keeps the firmware.` }));
  out.push(() => ({ q: `Is the ${p} safe to use around children?`, a: `The ${p} has a child lock that you turn on in ${pick(APPS)} or by holding the two side buttons for three seconds. Keep the cable out of reach and never leave it running unattended with small children.` }));
  return out;
}

function slug(s) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * `documents` product pages of `chunksPerDocument` chunks each, and `questions` visitor questions
 * (`offTopicShare` of them about something else). The same seed gives the same corpus.
 */
function faqCorpus({ documents, chunksPerDocument = 20, questions, offTopicShare = 0.1, seed = 11 }) {
  const r = rng(seed);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const names = new Set();
  const docs = [];
  while (docs.length < documents) {
    const model = `${pick(['K', 'X', 'S', 'M', 'Pro ', 'Mini ', 'Air ', 'Max '])}${1 + Math.floor(r() * 900)}`;
    const product = `${pick(BRANDS)} ${model} ${pick(PRODUCTS)}`;
    if (names.has(product)) continue;
    names.add(product);
    const pool = templates(product, r);
    // A random order of this product's topics; every question asked once.
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    const seen = new Set();
    const chunks = [];
    let t = 0;
    for (let c = 0; c < chunksPerDocument; c++) {
      const pairs = [];
      let length = 0;
      const want = 2 + Math.floor(r() * 3);
      while (pairs.length < want && t < pool.length) {
        const qa = pool[t++]();
        if (seen.has(qa.q)) continue;
        const size = qa.q.length + qa.a.length + 8;
        if (length + size > 1000) break;
        seen.add(qa.q);
        pairs.push(qa);
        length += size;
      }
      if (!pairs.length) throw new Error(`faqCorpus: ran out of topics for ${product}`);
      chunks.push({ text: pairs.map((p) => `Q: ${p.q}\nA: ${p.a}`).join('\n\n'), pairs });
    }
    docs.push({ product, title: `${product}: questions and answers`, sourceUrl: `https://help.example.com/products/${slug(product)}`, chunks });
  }
  const qs = [];
  for (let i = 0; i < questions; i++) {
    if (r() < offTopicShare) {
      qs.push({ text: pick(OFF_TOPIC), expect: null });
      continue;
    }
    const d = Math.floor(r() * docs.length);
    const c = Math.floor(r() * chunksPerDocument);
    const pair = pick(docs[d].chunks[c].pairs);
    const roll = r();
    const text = roll < 0.5 ? pair.q : roll < 0.75 ? pair.q.replace(/\?$/, '').toLowerCase() : `${pick(['Hi! ', 'Hello, ', 'Good morning. ', 'Quick question: '])}${pair.q}`;
    qs.push({ text, expect: { document: d, chunk: c, answer: pair.a } });
  }
  return { documents: docs, questions: qs };
}

module.exports = { faqCorpus };
