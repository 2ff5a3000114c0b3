# bash completion for kmtrace: commands, analyses and options.
# The words come from the binary itself (kmtrace -h, kmtrace list,
# kmtrace COMMAND -h), so they are those of the kmtrace being completed.
# make install puts this file in share/bash-completion/completions/kmtrace.

# _kmtrace_options CMD [ANALYSIS]: the long and short options of CMD's help,
# or of one analysis's "ANALYSIS options:" part of report's help.
_kmtrace_options()
{
	local help
	help=$("${COMP_WORDS[0]}" "$1" -h 2>&1)
	if [[ -n $2 ]]; then
		help=$(awk -v a="$2 options:" '$0 == a { on = 1; next } /^[a-z]+ options:$/ { on = 0 } on' <<<"$help")
	else
		help=$(awk '/^[a-z]+ options:$/ { exit } { print }' <<<"$help")
	fi
	grep -oE -- '(^|[ ,[])--?[a-zA-Z][a-zA-Z0-9-]*' <<<"$help" | sed 's/^[ ,[]//' | sort -u
}

# The analysis the word before the cursor belongs to (report only), or nothing.
_kmtrace_analysis()
{
	local i w analyses
	analyses=" $("${COMP_WORDS[0]}" list 2>/dev/null | awk '{ print $1 }' | tr '\n' ' ') "
	for ((i = COMP_CWORD - 1; i > 1; i--)); do
		w=${COMP_WORDS[i]}
		if [[ $analyses == *" $w "* ]]; then
			echo "$w"
			return
		fi
	done
}

_kmtrace()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd words
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		words=$("${COMP_WORDS[0]}" -h 2>&1 | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $prev in
	-i | --input | -o | --output | --kallsyms | --vmlinux | --html | --svg | --formats | --user-lib | --exe | \
	--modules)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--format)
		COMPREPLY=($(compgen -W "text csv json folded chrome jsonl sqlite" -- "$cur"))
		return
		;;
	esac
	case $cmd in
	report)
		local analysis
		analysis=$(_kmtrace_analysis)
		if [[ $cur == -* ]]; then
			words="$(_kmtrace_options report) ${analysis:+$(_kmtrace_options report "$analysis")}"
		else
			words=$("${COMP_WORDS[0]}" list 2>/dev/null | awk '{ print $1 }')
		fi
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		;;
	diff)
		# options, then BASE and NEW (files), then report's analyses
		if [[ $cur == -* ]]; then
			words=$(_kmtrace_options diff)
			COMPREPLY=($(compgen -W "$words" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur") $(compgen -W "$("${COMP_WORDS[0]}" list 2>/dev/null | awk '{ print $1 }')" -- "$cur"))
		fi
		;;
	footprint)
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "$(_kmtrace_options footprint)" -- "$cur"))
		;;
	record | top | watch)
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "$(_kmtrace_options "$cmd")" -- "$cur"))
		[[ $cur == -* ]] || COMPREPLY=($(compgen -c -- "$cur"))
		;;
	esac
}
complete -F _kmtrace kmtrace
