/* main.c - the tally command: which subcommand, and the overall help. */
#include <string.h>
#include "cli.h"

static const char usage[] =
    "usage: tally <command> [options] [FILE...]\n"
    "\n"
    "Counts LLM tokens exactly as the model's Hugging Face tokenizer and chat\n"
    "template do.\n"
    "\n"
    "commands:\n"
    "  tokenize   count (and list) the tokens of JSON-lines texts\n"
    "  render     render the chat template over JSON-lines prompts\n"
    "  count      count prompts, outputs, texts or token ids as upstream's\n"
    "             aggregator does (JSON lines or an events.jsonl)\n"
    "  replay     upstream's metrics aggregator over a run's event log: its final\n"
    "             snapshot, result summary and report\n"
    "  report     the result summary and report of a final snapshot\n"
    "  aggregate  upstream's live metrics aggregator process (ZeroMQ): drop-in\n"
    "  help       this text; `tally <command> --help` for a command's options\n"
    "  version    print the version\n"
    "\n"
    "tokenize, render and count read the FILEs named (or standard input, also as\n"
    "\"-\") and write one JSON line per input line, in order, to standard output or\n"
    "-o FILE.\n"
    "\n";

static const char usage2[] =
    "\n"
    "Chat templates of the short names (their packages' tokenizer_config.json):\n"
    "  reads tools:        qwen3\n"
    "  never reads tools:  llama3_1, llama3, deepseek_v3, gemma3\n"
    "                      (a prompt's tools are not in its count)\n"
    "  no template:        llama2, gpt4o, gptoss, claude\n"
    "                      (prompts and messages count as upstream's fallback)\n"
    "`tally count` says in its summary how many prompts carried tools that their\n"
    "template never reads.\n"
    "\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage, stdout);
        fputs(cli_tokenizer_help, stdout);
        fputs(usage2, stdout);
        fputs(cli_status_help, stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        puts("tally " TALLY_VERSION);
        return CLI_OK;
    }
    if (!strcmp(cmd, "tokenize"))
        return cmd_tokenize(argc - 1, argv + 1);
    if (!strcmp(cmd, "render"))
        return cmd_render(argc - 1, argv + 1);
    if (!strcmp(cmd, "count"))
        return cmd_count(argc - 1, argv + 1);
    if (!strcmp(cmd, "replay"))
        return cmd_replay(argc - 1, argv + 1);
    if (!strcmp(cmd, "aggregate"))
        return cmd_aggregate(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return cmd_report(argc - 1, argv + 1);
    cli_error("unknown command \"%s\"; see tally help", cmd);
    return CLI_USAGE;
}
