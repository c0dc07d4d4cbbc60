import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emptyModel, features, isSuspected, MAX_VOCABULARY, modelDoc, modelFromDoc, spamProbability, train } from '../../../actors/moderation/spam-classifier.js';
import { labelled } from './spam-corpus.js';

/** Precision and recall of the model on a labelled set. */
function measure(model: ReturnType<typeof emptyModel>, set: readonly { text: string; spam: boolean }[]) {
  let tp = 0, fp = 0, fn = 0;
  for (const { text, spam } of set) {
    const said = isSuspected(model, features(text));
    if (said && spam) tp++;
    else if (said) fp++;
    else if (spam) fn++;
  }
  return { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn), falsePositives: fp };
}

describe('spam classifier', () => {
  test('no verdict until moderators decided enough of each kind', () => {
    const model = emptyModel();
    for (let i = 0; i < 4; i++) train(model, features(`buy cheap pills ${i} https://cheap-meds.top`), true);
    assert.equal(spamProbability(model, features('buy cheap pills https://cheap-meds.top')), null);
  });

  test('features: links and domains, stuffing, shouting, the author', () => {
    const f = features('BUY BUY BUY BUY NOW at https://www.Shop.example/x and www.other.test', { trust: 10, history: 0 });
    for (const token of ['__host:shop.example', '__host:other.test', '__tld:example', '__links:2', '__stuffed', '__trust:low', '__history:none']) assert.ok(f.includes(token), token);
    assert.ok(features('THIS IS THE BEST OFFER EVER').includes('__shouting'));
    assert.ok(!features('A calm remark about the article.').includes('__stuffed'));
  });

  test('precision and recall on a labelled set, as decisions accumulate', (ctx) => {
    const training = labelled(1, 400);
    const held = labelled(2, 600);
    const model = emptyModel();
    const figures: string[] = [];
    let trained = 0;
    const results: Record<number, ReturnType<typeof measure>> = {};
    for (const checkpoint of [10, 25, 50, 100, 200, 400]) {
      for (; trained < checkpoint; trained++) train(model, features(training[trained]!.text), training[trained]!.spam);
      const m = measure(model, held);
      results[checkpoint] = m;
      figures.push(`${checkpoint} decisions: precision ${m.precision.toFixed(3)}, recall ${m.recall.toFixed(3)}`);
    }
    for (const line of figures) ctx.diagnostic(line);
    assert.ok(results[50]!.recall >= 0.75 && results[50]!.precision >= 0.95, figures.join('; '));
    assert.ok(results[400]!.precision >= 0.95 && results[400]!.recall >= 0.85, figures.join('; '));
    assert.ok(results[400]!.recall > results[10]!.recall, `it learns as decisions accumulate: ${figures.join('; ')}`);
  });

  test('words that name object properties are tokens like any other, and the model survives storing', () => {
    const model = emptyModel();
    for (let i = 0; i < 6; i++) {
      train(model, features(`constructor toString __proto__ hasOwnProperty spam ${i} https://a.example`), true);
      train(model, features(`an ordinary constructor of sentences ${i}`), false);
    }
    const again = modelFromDoc(modelDoc('t', model));
    assert.equal(spamProbability(again, features('constructor toString spam https://a.example')), spamProbability(model, features('constructor toString spam https://a.example')));
    assert.ok(isSuspected(again, features('toString spam https://a.example')));
  });

  test('the vocabulary stays bounded', () => {
    const model = emptyModel();
    for (let i = 0; i < 3000; i++) train(model, Array.from({ length: 10 }, (_, j) => `w${i}-${j}`), i % 2 === 0);
    assert.ok(Object.keys(model.counts).length <= MAX_VOCABULARY);
    assert.ok(model.spamTokens >= 0 && model.hamTokens >= 0);
  });
});
