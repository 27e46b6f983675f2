# Runs a short, seeded training run of fnc-train-fashion-mnist (EXE) into
# OUT and checks what it prints: one trace for every epoch and the partial
# last batch, a test accuracy far above chance, the plot and checkpoint
# written, and the restored model evaluating to the same accuracy.
file(REMOVE_RECURSE ${OUT})
execute_process(
  COMMAND ${EXE} --epochs=2 --train-limit=3000 --batch=100 --seed=7
          --out=${OUT}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} exited with ${rc}:\n${out}\n${err}")
endif()
foreach(expected
    "train_step traced 1 time(s) for 2 epochs"
    "epoch 2/2 30/30"
    "restored into a fresh model: test accuracy")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing \"${expected}\" in:\n${out}")
  endif()
endforeach()
string(REGEX MATCH "test accuracy ([0-9.]+) \\(trained model: ([0-9.]+)\\)"
       match "${out}")
if(NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
  message(FATAL_ERROR "the restored model differs:\n${out}")
endif()
if(CMAKE_MATCH_1 LESS 0.70)
  message(FATAL_ERROR "test accuracy ${CMAKE_MATCH_1} < 0.70 after 2 epochs "
                      "on 3000 images:\n${out}")
endif()
foreach(file mlp-history.svg mlp.npz)
  if(NOT EXISTS ${OUT}/${file})
    message(FATAL_ERROR "${OUT}/${file} was not written:\n${out}")
  endif()
endforeach()
