import { Navigate, useParams } from 'react-router';
import { usePerson } from '../../api/persons';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { personPath } from './format';
import { Loading } from '../../components/Loading';

/** `/project/:id/persons/:personId` (an id or uuid, PostHog's older links): the person's page by distinct id. */
export function Component() {
  const environment = useEnvironment();
  const { personId = '' } = useParams();
  const person = usePerson(environment.id, personId);
  if (person.isPending) {
    return <Loading p="xl" />;
  }
  if (person.isError) return <ErrorNotice error={person.error} title="The person could not be read" />;
  const distinctId = person.data.distinct_ids[0];
  if (distinctId === undefined) return <ErrorNotice error="This person has no distinct id." title="The person could not be shown" />;
  return <Navigate to={personPath(environment.id, distinctId)} replace />;
}
