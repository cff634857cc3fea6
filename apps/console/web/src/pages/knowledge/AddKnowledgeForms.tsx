import { useRef, useState } from 'react';
import { Form } from 'react-aria-components';
import { useAddKnowledge, useAddQa, useUploadFile } from '../../api/knowledge';
import type { Bot } from '../../api/types';
import { ActionButton } from '../../components/ActionButton';
import { TextAreaInput, TextInput } from '../../components/Fields';
import { ErrorMessage, SuccessMessage } from '../../components/Messages';
import { BotFor } from './BotFor';

const FILE_ACCEPT = '.pdf,.docx,.md,.markdown,.txt,.html,.htm';

/** "Title", "Page URL", For → "Add URL". A site's root also adds the pages it links to. */
export function AddUrlForm({ workspaceId, bots }: { workspaceId: string; bots: Bot[] }) {
  const add = useAddKnowledge(workspaceId);
  const [title, setTitle] = useState('');
  const [url, setUrl] = useState('');
  const [bot, setBot] = useState('');
  return (
    <Form
      className="form"
      aria-label="Add a URL"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate({ title: title.trim(), url: url.trim(), chatbotId: bot || undefined }, { onSuccess: () => (setTitle(''), setUrl('')) });
      }}
    >
      <ErrorMessage error={add.error} title="The URL was not added." />
      {add.isSuccess ? <SuccessMessage>The URL is queued; its status shows below.</SuccessMessage> : null}
      <TextInput label="Title" name="url-title" isRequired maxLength={300} value={title} onChange={setTitle} />
      <TextInput label="Page URL" name="url" type="url" isRequired maxLength={2048} value={url} onChange={setUrl} placeholder="https://example.com/help" description="A site's home page also adds the pages it links to (or its sitemap lists)." />
      <BotFor id="url-bot" bots={bots} value={bot} onChange={setBot} />
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={add.isPending}>
          Add URL
        </ActionButton>
      </div>
    </Form>
  );
}

/** "Title", "Text", For → "Add text". */
export function AddTextForm({ workspaceId, bots }: { workspaceId: string; bots: Bot[] }) {
  const add = useAddKnowledge(workspaceId);
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [bot, setBot] = useState('');
  return (
    <Form
      className="form"
      aria-label="Add text"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate({ title: title.trim(), text, chatbotId: bot || undefined }, { onSuccess: () => (setTitle(''), setText('')) });
      }}
    >
      <ErrorMessage error={add.error} title="The text was not added." />
      {add.isSuccess ? <SuccessMessage>The text is queued; its status shows below.</SuccessMessage> : null}
      <TextInput label="Title" name="text-title" isRequired maxLength={300} value={title} onChange={setTitle} />
      <TextAreaInput label="Text" name="text" isRequired maxLength={200000} rows={6} value={text} onChange={setText} />
      <BotFor id="text-bot" bots={bots} value={bot} onChange={setBot} />
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={add.isPending}>
          Add text
        </ActionButton>
      </div>
    </Form>
  );
}

/** "File" (PDF, DOCX, Markdown, text, HTML), "Title", For → "Upload file". */
export function UploadFileForm({ workspaceId, bots }: { workspaceId: string; bots: Bot[] }) {
  const upload = useUploadFile(workspaceId);
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState('');
  const [bot, setBot] = useState('');
  const [missing, setMissing] = useState(false);
  return (
    <Form
      className="form"
      aria-label="Upload a file"
      onSubmit={(e) => {
        e.preventDefault();
        if (!file) {
          setMissing(true);
          input.current?.focus();
          return;
        }
        upload.mutate(
          { file, title: title.trim() || undefined, chatbotId: bot || undefined },
          {
            onSuccess: () => {
              setFile(null);
              setTitle('');
              if (input.current) input.current.value = '';
            },
          },
        );
      }}
    >
      <ErrorMessage error={upload.error} title="The file was not uploaded." />
      {upload.isSuccess ? <SuccessMessage>The file is uploaded; its text is being read. Its status shows below.</SuccessMessage> : null}
      <div className="field">
        <label className="field__label" htmlFor="kb-file">
          File
        </label>
        <input
          ref={input}
          id="kb-file"
          className="field__input"
          type="file"
          accept={FILE_ACCEPT}
          required
          aria-invalid={missing || undefined}
          aria-describedby="kb-file-description"
          onChange={(e) => {
            setFile(e.target.files?.[0] ?? null);
            setMissing(false);
          }}
        />
        <p id="kb-file-description" className="field__description">
          PDF, Word (.docx), Markdown, plain text or HTML.
        </p>
        {missing ? <p className="field__error">Choose a file.</p> : null}
      </div>
      <TextInput label="Title" name="file-title" maxLength={300} value={title} onChange={setTitle} description="Default: the file's name." />
      <BotFor id="file-bot" bots={bots} value={bot} onChange={setBot} />
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={upload.isPending}>
          Upload file
        </ActionButton>
      </div>
    </Form>
  );
}

/** "Question", "Answer", For → "Add Q&A pair": the answer is given whole when the question is asked. */
export function AddQaForm({ workspaceId, bots }: { workspaceId: string; bots: Bot[] }) {
  const add = useAddQa(workspaceId);
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const [bot, setBot] = useState('');
  return (
    <Form
      className="form"
      aria-label="Add a Q&A pair"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate({ question: question.trim(), answer: answer.trim(), chatbotId: bot || undefined }, { onSuccess: () => (setQuestion(''), setAnswer('')) });
      }}
    >
      <ErrorMessage error={add.error} title="The Q&A pair was not added." />
      {add.isSuccess ? <SuccessMessage>The Q&A pair is added.</SuccessMessage> : null}
      <TextInput label="Question" name="question" isRequired maxLength={300} value={question} onChange={setQuestion} />
      <TextAreaInput label="Answer" name="answer" isRequired maxLength={4000} rows={4} value={answer} onChange={setAnswer} />
      <BotFor id="qa-bot" bots={bots} value={bot} onChange={setBot} />
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={add.isPending}>
          Add Q&amp;A pair
        </ActionButton>
      </div>
    </Form>
  );
}
