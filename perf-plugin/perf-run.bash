# perf-run.bash - bash completion for perf-run: its options, the values of
# -f and --dump, and probe names after -e and -l, from the list `perf-run -l`
# prints (run on first need, then kept for the shell's life).
# Installed as /usr/share/bash-completion/completions/perf-run.

_perf_run_opts='-e --expr -p --pid -c --cmd -o --output -f --format -q --quiet
-v --verbose --unsafe --dump -l --list -L --lines -V --vars --version -h --help --no-demangle
--listen --max-series --command-status -x --exec'

_perf_run_probes()
{
	[[ -n ${_perf_run_probe_list-} ]] ||
		_perf_run_probe_list=$(command perf-run -l 2>/dev/null)
	printf '%s\n' "$_perf_run_probe_list"
}

# The word being completed and the one before it, split on white space
# only: bash splits "tracepoint:sched:" at each ':' (COMP_WORDBREAKS), and
# probe names are matched whole.
_perf_run_words()
{
	local line=${COMP_LINE:0:COMP_POINT}
	local -a w
	read -ra w <<<"$line"
	[[ $line == *[[:space:]] ]] && w+=('')
	((${#w[@]})) || w=('')
	cur=${w[-1]}
	prev=
	((${#w[@]} > 1)) && prev=${w[-2]}
}

_perf_run()
{
	local cur prev
	COMPREPLY=()
	if [[ -n ${COMP_LINE-} ]]; then
		_perf_run_words
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	fi
	case $prev in
	-e | --expr | -l | --list)
		local q=${cur:0:1}
		[[ $q == [\'\"] ]] && cur=${cur:1} || q=
		mapfile -t COMPREPLY < <(compgen -W "$(_perf_run_probes)" -- "$cur")
		# bash shows and inserts what follows the last ':' of the word
		if [[ $cur == *:* && ${COMP_WORDBREAKS-} == *:* && -n ${COMP_LINE-} ]]; then
			local pre=${cur%"${cur##*:}"}
			COMPREPLY=("${COMPREPLY[@]#"$pre"}")
		elif [[ -n $q ]]; then
			COMPREPLY=("${COMPREPLY[@]/#/$q}")
		fi
		return
		;;
	-f | --format)
		mapfile -t COMPREPLY < <(compgen -W 'text json folded folded-perf perf pprof' -- "$cur")
		return
		;;
	--dump)
		mapfile -t COMPREPLY < <(compgen -W 'ast ir bpf probes' -- "$cur")
		return
		;;
	-p | --pid)
		mapfile -t COMPREPLY < <(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur")
		return
		;;
	-c | --cmd)
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		return
		;;
	--listen | --max-series)   # an address, a number: nothing to offer
		COMPREPLY=()
		return
		;;
	-o | --output | -L | --lines | -V | --vars | -x | --exec)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$_perf_run_opts" -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")   # a script FILE
	fi
}

complete -F _perf_run perf-run
