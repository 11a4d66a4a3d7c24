import { Anchor, Button, Divider, Group, Loader, NativeSelect, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useFlagChoices, useSaveSurvey, useSurvey, type Survey } from '../../api/surveys';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { QuestionsEditor } from './QuestionsEditor';
import {
  errorPlace,
  formFromSurvey,
  newSurveyForm,
  sectionOfField,
  SURVEY_TYPES,
  surveyFromForm,
  type SurveyForm,
  type SurveySection,
} from './survey-form';
import { Appearance, DisplayConditions, Targeting } from './SurveySettings';

/** An API error on a section of the form (not a single input): where it shows. */
interface SectionErrors extends Partial<Record<Exclude<SurveySection, 'questions'>, string>> {
  questions?: { message: string; index?: number };
}

const INPUTS = new Set(['name', 'description', 'type']);

function SurveyEditor({ survey }: { survey?: Survey }) {
  const environment = useEnvironment();
  const projectId = environment.project_id;
  const navigate = useNavigate();
  const form = useForm<SurveyForm>({ defaultValues: survey ? formFromSurvey(survey) : newSurveyForm() });
  const save = useSaveSurvey(projectId);
  const flags = useFlagChoices(projectId);
  const [errors, setErrors] = useState<SectionErrors>({});

  // An API error stays until what it is about is edited: an input's own error, its section's, and
  // the form's general one.
  useEffect(() => {
    const { unsubscribe } = form.watch((_values, { name }) => {
      if (!name) return;
      if (form.formState.errors.root) form.clearErrors('root');
      const section = sectionOfField(name);
      if (section) setErrors((current) => (current[section] === undefined ? current : { ...current, [section]: undefined }));
      else if (INPUTS.has(name) && form.getFieldState(name as 'name' | 'description' | 'type').error?.type === 'server')
        form.clearErrors(name as 'name' | 'description' | 'type');
    });
    return unsubscribe;
  }, [form]);

  const submit = async (values: SurveyForm) => {
    setErrors({});
    try {
      const result = await save.mutateAsync({ id: survey?.id, body: surveyFromForm(values, survey) });
      await navigate(`/project/${environment.id}/surveys/${result.id}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const { field, index } = errorPlace(error instanceof ApiError ? error.body.attr : undefined);
      if (INPUTS.has(field)) form.setError(field as 'name' | 'description' | 'type', { type: 'server', message });
      else if (field === 'questions') setErrors({ questions: { message, index } });
      else if (field === 'conditions' || field === 'appearance') setErrors({ [field]: message });
      else if (field === 'linked_flag_id' || field === 'linked_flag') setErrors({ linked: message });
      else if (field === 'targeting_flag_filters' || field === 'remove_targeting_flag') setErrors({ targeting: message });
      else form.setError('root', { type: 'server', message });
    }
  };

  return (
    <form onSubmit={(e) => void form.handleSubmit(submit)(e)} aria-label="Survey">
      <Stack gap="lg" maw={1000}>
        <Group align="flex-start" gap="md">
          <TextInput label="Name" w={360} error={form.formState.errors.name?.message} {...form.register('name')} />
          <NativeSelect
            label="Presentation"
            w={200}
            data={SURVEY_TYPES}
            error={form.formState.errors.type?.message}
            {...form.register('type')}
          />
        </Group>
        <Textarea
          label="Description"
          description="For your team; respondents do not see it"
          autosize
          minRows={2}
          maw={700}
          error={form.formState.errors.description?.message}
          {...form.register('description')}
        />
        <QuestionsEditor form={form} error={errors.questions} />
        <Divider />
        <DisplayConditions form={form} error={errors.conditions} />
        <Divider />
        <Appearance form={form} error={errors.appearance} />
        <Divider />
        <Targeting form={form} flags={flags.data ?? []} errors={{ linked: errors.linked, targeting: errors.targeting }} />
        <ErrorAlert message={form.formState.errors.root?.message} />
        <Group>
          <Button type="submit" loading={form.formState.isSubmitting}>
            {survey ? 'Save' : 'Save as draft'}
          </Button>
          <Button component={Link} variant="default" to={`/project/${environment.id}/surveys${survey ? `/${survey.id}` : ''}`}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** `surveys/new` and `surveys/:id/edit`: the survey's form; saving goes to the survey's page. */
export function Component() {
  const { surveyId } = useParams();
  const environment = useEnvironment();
  const survey = useSurvey(environment.project_id, surveyId);
  const back = (
    <Anchor component={Link} to={`/project/${environment.id}/surveys${surveyId ? `/${surveyId}` : ''}`} size="sm">
      ← {surveyId ? 'Survey' : 'Surveys'}
    </Anchor>
  );
  if (!surveyId) {
    return (
      <Stack>
        {back}
        <Title order={2}>New survey</Title>
        <SurveyEditor />
      </Stack>
    );
  }
  if (survey.error) return <ErrorNotice error={survey.error} title="The survey could not be loaded" />;
  if (survey.isPending) return <Loader aria-label="Loading" />;
  return (
    <Stack>
      {back}
      <Title order={2}>Edit {survey.data.name}</Title>
      <SurveyEditor survey={survey.data} />
    </Stack>
  );
}
