import { Module } from '@nestjs/common';
import { DatabaseModule } from '@sa/db';
import { connectionCalls, installationChatModel } from '@sa/llm-config';
import { createLogger } from '@sa/logging';
import { MessagingModule } from '@sa/messaging';
import { OpsModule } from '@sa/ops';
import { SecretBox } from '@sa/secret-box';
import { BotCheck } from './bot-check';
import { CasesRepository } from './cases/cases.repository';
import { CasesService } from './cases/cases.service';
import { AutoRuns } from './changes/auto-runs';
import { EVALUATIONS_CONFIG, loadEvaluationsConfig } from './config/evaluations.config';
import { EvaluationsHandler } from './evaluations.handler';
import { EVALUATIONS_LOGGER, JUDGE } from './evaluations.tokens';
import { Judge, JUDGE_MAX_TOKENS } from './judge/judge';
import { GateNotifier } from './runs/gate.notifier';
import { RunWorker } from './runs/run.worker';
import { RunsRepository } from './runs/runs.repository';
import { RunsService } from './runs/runs.service';

const config = loadEvaluationsConfig();

/**
 * Evaluations (issue 33): each bot's test set, runs that answer every case through the real chat
 * path (playground turns: stored and counted nowhere) and grade the replies, resumable after a
 * restart; automatic runs after knowledge, behaviour and model changes; the gate's e-mail.
 */
@Module({
  imports: [
    DatabaseModule.forRoot({ url: config.databaseUrl, poolSize: config.dbPoolSize, applicationName: 'evaluations' }),
    MessagingModule.forRoot({ natsUrl: config.natsUrl, rpcTimeoutMs: config.rpcTimeoutMs, rpcLiveness: { intervalMs: config.rpcLivenessMs, lostAfterMs: config.rpcLostAfterMs }, service: 'evaluations', connectionName: 'evaluations' }),
    OpsModule.forService('evaluations', config),
  ],
  controllers: [EvaluationsHandler],
  providers: [
    { provide: EVALUATIONS_CONFIG, useValue: config },
    { provide: EVALUATIONS_LOGGER, useValue: createLogger('evaluations', { level: config.logLevel }) },
    // The judge calls the bot's model connection through the outbound guard (OUTBOUND_*, MODEL_CONNECTION_*),
    // or the installation's model (CHAT_MODEL_*) for bots without one.
    {
      provide: JUDGE,
      useFactory: () =>
        new Judge(new SecretBox(config.secretKey.key), connectionCalls(), {
          installation: installationChatModel(config.chatModel, { temperature: 0, maxTokens: JUDGE_MAX_TOKENS }),
          timeoutMs: config.judgeTimeoutMs,
        }),
    },
    BotCheck,
    CasesRepository,
    CasesService,
    RunsRepository,
    RunsService,
    RunWorker,
    GateNotifier,
    AutoRuns,
  ],
})
export class AppModule {}
