while((FILECOUNT <= NUM_ALL_FILES))
do
  for category in "${categories[@]}"
  do
    python freesound_download.py --data_dir "${DATADIR}" --category "${category}" --page_size "${page_size}" --max_samples "${max_samples}" --min_filesize "${min_filesize}" --max_filesize "${max_filesize}"
    ret=$?
    if [ $ret -ne 0 ]; then
        exit 1
    fi
  done
  
  WAV_FILECOUNT="$(find $DATADIR  -name '*.wav' -type f | wc -l)"
  FLAC_FILECOUNT="$(find $DATADIR  -name '*.flac' -type f | wc -l)"
  FILECOUNT="$((WAV_FILECOUNT + FLAC_FILECOUNT))"
  echo "Current file count is: " $FILECOUNT
done
