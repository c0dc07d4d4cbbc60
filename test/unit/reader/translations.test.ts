import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CATALOGS, componentStrings, COMPONENTS, languageOf } from '../../../translations/index.js';

describe('interface strings', () => {
  test('every language has every English key of every component, and nothing else', () => {
    const english = CATALOGS['en']!;
    for (const [language, catalog] of Object.entries(CATALOGS)) {
      assert.deepEqual(Object.keys(catalog).sort(), [...COMPONENTS].sort(), language);
      for (const component of COMPONENTS) {
        assert.deepEqual(Object.keys(catalog[component]!).sort(), Object.keys(english[component]!).sort(), `${language} ${component}`);
        for (const [key, value] of Object.entries(catalog[component]!)) assert.ok(value.trim() !== '', `${language} ${component}.${key} is empty`);
      }
    }
  });

  test('placeholders are the same in every language', () => {
    const english = CATALOGS['en']!;
    const holes = (text: string) => (text.match(/\{[a-z]+\}/g) ?? []).sort();
    for (const [language, catalog] of Object.entries(CATALOGS)) {
      for (const component of COMPONENTS) {
        for (const [key, value] of Object.entries(english[component]!)) assert.deepEqual(holes(catalog[component]![key]!), holes(value), `${language} ${component}.${key}`);
      }
    }
  });

  test('at least six languages, one written right to left, the rest left to right', () => {
    assert.ok(Object.keys(CATALOGS).length >= 6);
    const directions = Object.fromEntries(Object.entries(CATALOGS).map(([language, c]) => [language, c['comment-ui']!['LOCALE_DIRECTION']]));
    assert.equal(directions['ar'], 'rtl');
    assert.ok(Object.entries(directions).every(([language, d]) => d === (language === 'ar' ? 'rtl' : 'ltr')));
  });

  test('a locale finds its language in any spelling; unknown ones get English', () => {
    assert.deepEqual(['de_de', 'de-DE', 'DE', 'ar_eg', 'ja', 'pt_br', '', undefined].map((l) => languageOf(l)), ['de', 'de', 'de', 'ar', 'ja', 'en', 'en', 'en']);
    assert.equal(componentStrings('comment-ui', 'fr_fr')!['REPLY'], 'Répondre');
    assert.equal(componentStrings('nope', 'en'), undefined);
  });
});
