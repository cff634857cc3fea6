import 'reflect-metadata';
import { ConfigError } from '@sa/config';
import { loadKnowledgeConfig } from './knowledge.config';

describe('the limits of the file readers (issue 30)', () => {
  it('default to a 384 MB resident memory limit and a 256 MB inflated size', () => {
    const config = loadKnowledgeConfig({});
    expect(config.fileReadMaxRssMb).toBe(384);
    expect(config.fileMaxInflatedMb).toBe(256);
    expect(config.fileReadHeapMb).toBe(256);
  });

  it('read KB_FILE_READ_MAX_RSS_MB and KB_FILE_MAX_INFLATED_MB', () => {
    const config = loadKnowledgeConfig({ KB_FILE_READ_MAX_RSS_MB: '300', KB_FILE_MAX_INFLATED_MB: '64', KB_FILE_READ_HEAP_MB: '128' });
    expect(config.fileReadMaxRssMb).toBe(300);
    expect(config.fileMaxInflatedMb).toBe(64);
  });

  it('refuse values that are not whole numbers or out of range', () => {
    expect(() => loadKnowledgeConfig({ KB_FILE_READ_MAX_RSS_MB: 'lots' })).toThrow(/KB_FILE_READ_MAX_RSS_MB must be an integer/);
    expect(() => loadKnowledgeConfig({ KB_FILE_READ_MAX_RSS_MB: '50' })).toThrow(/KB_FILE_READ_MAX_RSS_MB must be at least 96/);
    expect(() => loadKnowledgeConfig({ KB_FILE_MAX_INFLATED_MB: '0' })).toThrow(/KB_FILE_MAX_INFLATED_MB must be at least 1/);
  });

  it('refuse a resident memory limit at or under the heap limit (the heap is part of it)', () => {
    expect(() => loadKnowledgeConfig({ KB_FILE_READ_MAX_RSS_MB: '256', KB_FILE_READ_HEAP_MB: '256' })).toThrow(ConfigError);
    expect(() => loadKnowledgeConfig({ KB_FILE_READ_MAX_RSS_MB: '200' })).toThrow(/KB_FILE_READ_MAX_RSS_MB \(200\) must be above KB_FILE_READ_HEAP_MB \(256\)/);
  });
});
