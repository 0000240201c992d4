/**
 * Fields in words (families/field-words.ts): what forms, import reports and
 * the API's problems say in place of a JSON pointer.
 */
import { describe, expect, it } from 'vitest';
import { cfihosEntity } from '../../src/refdata/families/cfihos-entity.js';
import { fieldWords, humanize, inWords } from '../../src/refdata/families/field-words.js';
import { property } from '../../src/refdata/families/property.js';

describe('fields in words', () => {
  it('names each step by its title, else its name in words, counting rows from one', () => {
    expect(fieldWords(cfihosEntity.schema, '/propertyReferences/1/minCardinality')).toBe(
      'Property references › 2 › Min cardinality',
    );
    expect(fieldWords(cfihosEntity.schema, '/superEntity')).toBe('Superclass');
    expect(fieldWords(cfihosEntity.schema, '/propertyReferences/0/propertyUri')).toBe(
      'Property references › 1 › Property URI',
    );
    // A field the schema does not have, and escaped pointer characters, still read.
    expect(fieldWords(property.schema, '/no~1such~0field')).toBe('No/such~field');
    expect(fieldWords({}, '')).toBe('');
  });

  it('writes an error as a sentence, and a whole-body error as it is', () => {
    expect(inWords(property.schema, { field: '/range', detail: 'is required for a number' })).toBe(
      'Range is required for a number',
    );
    expect(inWords(property.schema, { field: '', detail: 'Only its author changes it.' })).toBe(
      'Only its author changes it.',
    );
  });

  it('says names as people do', () => {
    expect(humanize('relatedTerms')).toBe('Related terms');
    expect(humanize('cfihosPrefix')).toBe('CFIHOS prefix');
    expect(humanize('uomDimension')).toBe('Unit of measure dimension');
  });
});
