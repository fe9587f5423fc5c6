/** The Conversations role over REST (src/github/upstream.ts): pull requests from a branch, issue comments. */
import type { Conversations, OpenPullRequest, ThreadInfo, ThreadPost } from '../upstream.js';
import type { RestClient } from './octokit-client.js';

interface RestPull {
  number: number;
  html_url: string;
  draft?: boolean;
  base: { ref: string };
  labels: Array<{ name: string }>;
}

interface RestPost {
  user: { login: string } | null;
  body?: string | null;
  created_at: string;
}

const openPull = (data: RestPull): OpenPullRequest => ({
  number: data.number,
  url: data.html_url,
  base: data.base.ref,
  draft: data.draft === true,
  labels: data.labels.map((l) => l.name),
});

const post = (data: RestPost): ThreadPost => ({
  author: data.user?.login ?? null,
  body: data.body ?? '',
  createdAt: data.created_at,
});

export function octokitConversations(rest: RestClient, owner: string): Conversations {
  return {
    async findOpenPullRequest(head) {
      // GitHub lists at most one open pull request per head and base; one per head is what Perimeter opens
      const data = await rest.read<RestPull[]>(
        `find the pull request from ${head}`,
        'GET /repos/{owner}/{repo}/pulls',
        { state: 'open', head: `${owner}:${head}`, per_page: 100 },
      );
      return data.length === 0 ? null : openPull(data[0]!);
    },
    async updatePullRequest(number, change) {
      const data = await rest.write<RestPull>(
        `update pull request #${number}`,
        'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
        { pull_number: number, title: change.title, body: change.body },
      );
      return openPull(data);
    },
    async addLabels(number, labels) {
      await rest.write(`label #${number}`, 'POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
        issue_number: number,
        labels,
      });
    },
    async createIssueComment(number, body) {
      const data = await rest.write<{ id: number; html_url: string }>(
        `comment on #${number}`,
        'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
        { issue_number: number, body },
      );
      return { id: data.id, url: data.html_url };
    },
    async getThread(number, maxComments) {
      const issue = await rest.read<
        RestPost & { number: number; html_url: string; state: string; title: string; pull_request?: unknown }
      >(`read #${number}`, 'GET /repos/{owner}/{repo}/issues/{issue_number}', { issue_number: number });
      const comments: ThreadPost[] = [];
      let complete = false;
      for (let page = 1; comments.length < maxComments; page++) {
        const data = await rest.read<RestPost[]>(
          `read the comments of #${number}`,
          'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
          { issue_number: number, per_page: 100, page },
        );
        comments.push(...data.map(post));
        if (data.length < 100) {
          complete = comments.length <= maxComments;
          break;
        }
      }
      const thread: ThreadInfo = {
        number: issue.number,
        kind: issue.pull_request === undefined ? 'issue' : 'pull_request',
        url: issue.html_url,
        state: issue.state,
        title: issue.title,
        opening: post(issue),
        comments: comments.slice(0, maxComments),
        complete,
      };
      return thread;
    },
    async getPermission(login) {
      const data = await rest.read<{ permission: string }>(
        `read the permission of ${login}`,
        'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
        { username: login },
      );
      return data.permission;
    },
  };
}
