import { ActionIcon, Button, Checkbox, Group, NativeSelect, Paper, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useFieldArray, type UseFormReturn } from 'react-hook-form';
import { ErrorText } from '../../components/ErrorAlert';
import { newQuestion, QUESTION_TYPES, RATING_SCALES, type SurveyForm } from './survey-form';

type Form = UseFormReturn<SurveyForm>;

/** A choice question's choices; with an open choice, the last one is the "Other" the respondent types into. */
function Choices({ form, index }: { form: Form; index: number }) {
  const choices = useFieldArray({ control: form.control, name: `questions.${index}.choices` });
  const hasOpenChoice = form.watch(`questions.${index}.hasOpenChoice`);
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        Choices
      </Text>
      {choices.fields.map((field, c) => {
        const isOpen = hasOpenChoice && c === choices.fields.length - 1;
        return (
          <Group key={field.id} gap="xs" wrap="nowrap">
            <TextInput
              aria-label={isOpen ? 'Open choice' : `Choice ${c + 1}`}
              w={320}
              {...form.register(`questions.${index}.choices.${c}.value`)}
            />
            {isOpen && (
              <Text size="xs" c="dimmed">
                open-ended: the respondent types their answer
              </Text>
            )}
            {choices.fields.length > 1 && (
              <ActionIcon variant="subtle" color="gray" aria-label={`Remove choice ${c + 1}`} onClick={() => choices.remove(c)}>
                ×
              </ActionIcon>
            )}
          </Group>
        );
      })}
      <Group gap="xs">
        <Button
          size="compact-xs"
          variant="default"
          onClick={() =>
            // New choices go before the open one, which stays last.
            hasOpenChoice ? choices.insert(choices.fields.length - 1, { value: '' }) : choices.append({ value: '' })
          }
        >
          Add choice
        </Button>
        {!hasOpenChoice && (
          <Button
            size="compact-xs"
            variant="default"
            onClick={() => {
              choices.append({ value: 'Other' });
              form.setValue(`questions.${index}.hasOpenChoice`, true);
            }}
          >
            Add open-ended choice
          </Button>
        )}
        {hasOpenChoice && (
          <Button
            size="compact-xs"
            variant="subtle"
            color="gray"
            onClick={() => {
              choices.remove(choices.fields.length - 1);
              form.setValue(`questions.${index}.hasOpenChoice`, false);
            }}
          >
            Remove open-ended choice
          </Button>
        )}
      </Group>
      <Checkbox label="Shuffle options" {...form.register(`questions.${index}.shuffleOptions`)} />
    </Stack>
  );
}

function Rating({ form, index }: { form: Form; index: number }) {
  const display = form.watch(`questions.${index}.display`);
  return (
    <Group align="flex-end" gap="sm">
      <NativeSelect
        label="Display"
        w={140}
        data={[
          { value: 'number', label: 'Number' },
          { value: 'emoji', label: 'Emoji' },
        ]}
        {...form.register(`questions.${index}.display`, {
          // The scales differ: each display starts on its largest.
          onChange: (e: { target: { value: 'number' | 'emoji' } }) =>
            form.setValue(`questions.${index}.scale`, String(RATING_SCALES[e.target.value].at(-1))),
        })}
      />
      <NativeSelect
        label="Scale"
        w={120}
        data={RATING_SCALES[display].map((n) => ({ value: String(n), label: `1 – ${n}` }))}
        {...form.register(`questions.${index}.scale`)}
      />
      <TextInput label="Lower bound label" w={180} {...form.register(`questions.${index}.lowerBoundLabel`)} />
      <TextInput label="Upper bound label" w={180} {...form.register(`questions.${index}.upperBoundLabel`)} />
    </Group>
  );
}

function Question({ form, index, error, onRemove }: { form: Form; index: number; error?: string; onRemove?: () => void }) {
  const type = form.watch(`questions.${index}.type`);
  return (
    <Paper withBorder p="sm" data-testid="question">
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600}>Question {index + 1}</Text>
          {onRemove && (
            <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove}>
              Remove question
            </Button>
          )}
        </Group>
        <Group align="flex-end" gap="sm">
          <NativeSelect label="Question type" w={220} data={QUESTION_TYPES} {...form.register(`questions.${index}.type`)} />
          <TextInput label="Question" w={460} {...form.register(`questions.${index}.question`)} />
        </Group>
        <Textarea label="Question description" autosize minRows={1} maw={700} {...form.register(`questions.${index}.description`)} />
        {(type === 'single_choice' || type === 'multiple_choice') && <Choices form={form} index={index} />}
        {type === 'rating' && <Rating form={form} index={index} />}
        {type === 'link' && (
          <TextInput
            label="Link"
            description="https:// or mailto: — the button opens it"
            w={460}
            {...form.register(`questions.${index}.link`)}
          />
        )}
        <Group align="flex-end" gap="sm">
          <TextInput label="Button text" w={220} {...form.register(`questions.${index}.buttonText`)} />
          <Checkbox label="Optional" mb={8} {...form.register(`questions.${index}.optional`)} />
        </Group>
        <ErrorText message={error} testId="question-error" />
      </Stack>
    </Paper>
  );
}

/** The survey's questions, in order; an API error on `questions` shows at the question it names, else under the list. */
export function QuestionsEditor({ form, error }: { form: Form; error?: { message: string; index?: number } }) {
  const questions = useFieldArray({ control: form.control, name: 'questions' });
  return (
    <Stack gap="sm" data-testid="questions-editor">
      <Title order={4}>Questions</Title>
      {questions.fields.map((field, index) => (
        <Question
          key={field.id}
          form={form}
          index={index}
          error={error?.index === index ? error.message : undefined}
          onRemove={questions.fields.length > 1 ? () => questions.remove(index) : undefined}
        />
      ))}
      <Group>
        <Button size="xs" variant="light" onClick={() => questions.append(newQuestion('open'))}>
          Add question
        </Button>
      </Group>
      <ErrorText message={error && error.index === undefined ? error.message : undefined} testId="questions-error" />
    </Stack>
  );
}
