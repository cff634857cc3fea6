import type { AnalyticsView } from '@sa/contracts';

/** Analytics of spec part 2: one definition, in the contracts lib. */
export type { AnalyticsView };
export type DailyCountsView = AnalyticsView['daily'][number];
export type TopQuestionView = AnalyticsView['top_questions'][number];
