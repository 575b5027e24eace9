FRAMEWORKS=( a )
if x; then FRAMEWORKS+=( b $(c) ); fi
read -ra FRAMEWORKS <<< "$L"
FRAMEWORKS[2]=x
