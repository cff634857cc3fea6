import { Injectable, Optional } from '@nestjs/common';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import { BehaviourSettings, BotBehaviourView, BotModelChoice, CallerContext, UpdateBotBehaviourRequest } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { ModelConnectionsRepository } from '../models/model-connections.repository';
import { WidgetSettingsService } from '../widget/widget-settings.service';
import { BehaviourRepository, BehaviourRow } from './behaviour.repository';
import { EvalChangePublisher } from './eval-change.publisher';

export function toBehaviourView(r: BehaviourRow): BotBehaviourView {
  return {
    chatbot_id: r.chatbot_id,
    instructions: r.instructions,
    fallback_reply: r.fallback_reply,
    answer_length: r.answer_length,
    starter_questions: r.starter_questions,
    model_connection_id: r.model_connection_id,
    temperature: r.temperature,
    updated_at: r.updated_at ? r.updated_at.toISOString() : null,
  };
}

/** Starter questions as stored: trimmed, the first of each (case-insensitive) kept. */
export function cleanStarterQuestions(questions: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const q of questions.map((x) => x.trim())) {
    const key = q.toLocaleLowerCase();
    if (!q || seen.has(key)) continue;
    seen.add(key);
    out.push(q);
  }
  return out;
}

/**
 * A bot's behaviour (issue 32). Chat reads it with the bot on every turn (bots.bot.describe), so a
 * change applies to the next turn without a cache to clear; the gateways cache the widget's copy
 * (the starter questions) and drop it on `bots.widget.changed`, published on every change.
 */
@Injectable()
export class BehaviourService {
  constructor(
    private readonly repository: BehaviourRepository,
    private readonly widget: WidgetSettingsService,
    private readonly connections: ModelConnectionsRepository,
    @Optional() private readonly evalChanges?: EvalChangePublisher,
  ) {}

  private async row(ctx: CallerContext, botId: string): Promise<BehaviourRow> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    const row = await this.repository.find(ctx.tenantId, botId);
    if (!row) throw new NotFound('Bot');
    return row;
  }

  async get(ctx: CallerContext, botId: string): Promise<BotBehaviourView> {
    return toBehaviourView(await this.row(ctx, botId));
  }

  async update(ctx: CallerContext, req: UpdateBotBehaviourRequest): Promise<BotBehaviourView> {
    const current = await this.row(ctx, req.botId);
    if (req.model_connection_id) await this.connections.mustExist(ctx.tenantId, req.model_connection_id);
    const next: BehaviourSettings & BotModelChoice = {
      instructions: req.instructions != null ? req.instructions.trim() : current.instructions, // null passes IsOptional: left out
      fallback_reply: req.fallback_reply !== undefined ? (req.fallback_reply?.trim() ?? null) : current.fallback_reply,
      answer_length: req.answer_length ?? current.answer_length,
      starter_questions: req.starter_questions ? cleanStarterQuestions(req.starter_questions) : current.starter_questions,
      model_connection_id: req.model_connection_id !== undefined ? req.model_connection_id : current.model_connection_id,
      temperature: req.temperature !== undefined ? req.temperature : current.temperature,
    };
    await this.repository.save(ctx.tenantId, req.botId, next);
    this.widget.announceChange(req.botId);
    // Issue 33: what the bot answers may change (the starter questions alone do not change answers).
    if (next.model_connection_id !== current.model_connection_id || next.temperature !== current.temperature) this.evalChanges?.changed(ctx.tenantId, req.botId, 'model');
    else if (next.instructions !== current.instructions || next.fallback_reply !== current.fallback_reply || next.answer_length !== current.answer_length) this.evalChanges?.changed(ctx.tenantId, req.botId, 'behaviour');
    return toBehaviourView((await this.repository.find(ctx.tenantId, req.botId))!);
  }
}
