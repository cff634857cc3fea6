import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { TicketView } from '@sa/contracts';
import { queryRows } from '@sa/db';
import { ChatFeedback } from '../conversations/conversations.views';

export interface NewTicket {
  tenantId: string;
  chatbotId: string;
  sessionId: string;
  email: string;
  name: string | null;
  subject: string;
  message: string;
}

interface TicketRow {
  id: string;
  session_id: string;
  chatbot_id: string;
  email: string;
  name: string | null;
  subject: string;
  message: string;
  created_at: Date;
}

const TICKET_COLUMNS = 'id, session_id, chatbot_id, email, name, subject, message, created_at';

export function toTicketView(r: TicketRow): TicketView {
  return {
    id: r.id,
    session_id: r.session_id,
    chatbot_id: r.chatbot_id,
    email: r.email,
    name: r.name,
    subject: r.subject,
    message: r.message,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** The widget's writes in the chat schema: feedback on a bot's replies and support tickets. Every method names the tenant. */
@Injectable()
export class WidgetRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Records the visitor's feedback (again, possibly changed) on an assistant message of a session
   * of the workspace that belongs to `chatbotId`. One statement; false when there is no such message.
   */
  async setBotMessageFeedback(tenantId: string, chatbotId: string, sessionId: string, messageId: string, feedback: ChatFeedback): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.ds,
      `UPDATE chat.messages msg SET feedback = $5
        WHERE msg.tenant_id = $1 AND msg.session_id = $3 AND msg.id = $4 AND msg.role = 'assistant'
          AND EXISTS (SELECT 1 FROM chat.sessions s WHERE s.tenant_id = $1 AND s.session_id = $3 AND s.chatbot_id = $2)
        RETURNING msg.id`,
      [tenantId, chatbotId, sessionId, messageId, feedback],
    );
    return rows.length > 0;
  }

  async insertTicket(m: EntityManager, t: NewTicket): Promise<TicketView> {
    const [row] = await queryRows<TicketRow>(
      m,
      `INSERT INTO chat.tickets (tenant_id, chatbot_id, session_id, email, name, subject, message)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       RETURNING ${TICKET_COLUMNS}`,
      [t.tenantId, t.chatbotId, t.sessionId, t.email, t.name, t.subject, t.message],
    );
    if (!row) throw new Error('insertTicket: the insert returned no row');
    return toTicketView(row);
  }
}
